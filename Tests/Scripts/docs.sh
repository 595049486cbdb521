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
# Preview one catalog in a browser (http://localhost:8080/documentation/preferences):
#   bash Tests/Scripts/docs.sh --preview Preferences
#
# Preferences is built apart from the plugin. Four of its public types (`PreferencesError`,
# `DomainGeneration`, `DomainRecovery`, `CommitOrigin`) are declared in the file layer's module,
# DomainStorage, and re-exported; swift-docc-plugin extracts a module's symbols without those
# of modules it re-exports (swiftlang/swift-docc-plugin#113), so its archive would lack them and
# every link to them. The compiler's extractor takes them when told which re-exported module to
# include (`-experimental-allowed-reexported-modules`); this script runs it and `docc` itself.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

scratch=.build-docs
preview=""
case ${1:-} in
    --scratch-path) scratch=$2 ;;
    --preview) preview=$2 ;;
esac
output="$scratch/documentation"
mkdir -p "$output"

targets=(PropertyList DeclaredSettings Preferences)

# Writes the symbol graphs of Preferences, with DomainStorage's public types as its own, to $1.
extract_preferences_symbols() {
    local graphs=$1
    swift build --scratch-path "$scratch" --target Preferences >/dev/null
    local bin
    bin=$(swift build --scratch-path "$scratch" --show-bin-path)
    rm -rf "$graphs" && mkdir -p "$graphs"
    # The C modules Preferences' dependencies import: SwiftPM's map of CLinux, the system
    # library CSystemd, swift-system's CSystem.
    swift-symbolgraph-extract -module-name Preferences -target "$(uname -m)-unknown-linux-gnu" \
        -I "$bin/Modules" \
        -Xcc -fmodule-map-file="$bin/CLinux.build/module.modulemap" \
        -Xcc -fmodule-map-file=Sources/CSystemd/module.modulemap \
        -Xcc -fmodule-map-file="$scratch/checkouts/swift-system/Sources/CSystem/include/module.modulemap" \
        -minimum-access-level public -skip-synthesized-members -emit-extension-block-symbols \
        -experimental-allowed-reexported-modules=DomainStorage \
        -output-dir "$graphs"
}

if [[ -n $preview ]]; then
    if [[ $preview == Preferences ]]; then
        extract_preferences_symbols "$scratch/symbol-graphs/Preferences"
        exec docc preview Sources/Preferences/Preferences.docc \
            --additional-symbol-graph-dir "$scratch/symbol-graphs/Preferences" \
            --fallback-display-name Preferences --fallback-bundle-identifier Preferences
    fi
    exec swift package --scratch-path "$scratch" --disable-sandbox preview-documentation --target "$preview"
fi

for target in "${targets[@]}"; do
    echo "docs: building $target"
    if [[ $target == Preferences ]]; then
        extract_preferences_symbols "$scratch/symbol-graphs/Preferences"
        rm -rf "$output/$target.doccarchive"
        docc convert Sources/Preferences/Preferences.docc \
            --additional-symbol-graph-dir "$scratch/symbol-graphs/Preferences" \
            --fallback-display-name Preferences --fallback-bundle-identifier Preferences \
            --warnings-as-errors --output-path "$output/$target.doccarchive"
    else
        # Synthesized symbols (an Equatable's `!=`, a RawRepresentable's `hashValue`) are the
        # standard library's, documented there; they are left out rather than curated here.
        swift package --scratch-path "$scratch" --allow-writing-to-directory "$output" \
            generate-documentation --target "$target" \
            --warnings-as-errors --experimental-skip-synthesized-symbols \
            --output-path "$output/$target.doccarchive"
    fi

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
