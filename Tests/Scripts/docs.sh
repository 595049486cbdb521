#!/usr/bin/env bash
# Builds the DocC catalogs of PropertyList, DeclaredSettings and Preferences with warnings
# as errors (a broken symbol link, an undocumented parameter, a missing article), then
# fails if any public symbol is in no topic group written by hand: DocC itself only files
# such a symbol under a generated group ("Instance Methods") and says nothing. So the
# documentation cannot rot quietly: a renamed symbol breaks a link, a new one must be
# curated. Exits non-zero on the first catalog that fails.
#
#   bash Tests/Scripts/docs.sh [--scratch-path PATH]      (default .build-docs)
#
# Preview one catalog in a browser:
#   swift package --disable-sandbox preview-documentation --target Preferences
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

scratch=.build-docs
if [[ ${1:-} == --scratch-path ]]; then scratch=$2; fi
output="$scratch/documentation"
mkdir -p "$output"

targets=(PropertyList DeclaredSettings Preferences)

for target in "${targets[@]}"; do
    echo "docs: building $target"
    # Synthesized symbols (an Equatable's `!=`, a RawRepresentable's `hashValue`) are the
    # standard library's, documented there; they are left out rather than curated here.
    swift package --scratch-path "$scratch" --allow-writing-to-directory "$output" \
        generate-documentation --target "$target" \
        --warnings-as-errors --experimental-skip-synthesized-symbols \
        --output-path "$output/$target.doccarchive"

    echo "docs: checking that every public symbol of $target is curated"
    python3 - "$output/$target.doccarchive" "$target" <<'PY'
import json, os, sys

archive, target = sys.argv[1], sys.argv[2]
root = os.path.join(archive, "data", "documentation")
pages = {}
for directory, _, files in os.walk(root):
    for name in files:
        if name.endswith(".json"):
            with open(os.path.join(directory, name)) as file:
                node = json.load(file)
            pages[node["identifier"]["url"]] = node

# Identifiers listed in a topic group written in a catalog file or a doc comment;
# DocC marks the groups it makes up itself `generated`.
curated = set()
for node in pages.values():
    for section in node.get("topicSections", []):
        if not section.get("generated", False):
            curated.update(section.get("identifiers", []))

module = f"doc://{target}/documentation/{target}"
symbols = [url for url, node in pages.items() if node.get("kind") == "symbol" and url != module]
missing = sorted(url for url in symbols if url not in curated)
if not symbols:
    print(f"docs: no symbol pages found in {archive}", file=sys.stderr)
    sys.exit(1)
if missing:
    print(f"error: {len(missing)} public symbol(s) of {target} are in no topic group:", file=sys.stderr)
    for url in missing:
        print("  " + url.split("/documentation/", 1)[1], file=sys.stderr)
    print("Add each to a `## Topics` group of the root page or of its type's extension file "
          f"in Sources/{target}/{target}.docc.", file=sys.stderr)
    sys.exit(1)
print(f"docs: {len(symbols)} symbols of {target}, every one curated")
PY
done
echo "docs: ${targets[*]}: built with no warnings, every public symbol curated"
