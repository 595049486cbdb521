#!/usr/bin/env bash
# Builds the DocC catalog of every library product (PropertyList, DeclaredSettings,
# Preferences, JournaldLogging, PreferencesService, PreferencesConfiguration) with warnings as
# errors (a broken symbol link, an undocumented parameter, a missing article), then fails if any
# public symbol is in no topic group written by hand: DocC itself only files such a symbol
# under a generated group ("Instance Methods") and says nothing. So the documentation cannot
# rot quietly: a renamed symbol breaks a link, a new one must be curated. Exits non-zero on the
# first catalog that fails.
#
#   bash Tests/Scripts/docs.sh [--scratch-path PATH]   (the tools package's build directory,
#                                                      default Tools/.build)
#
# Preview one catalog in a browser (http://localhost:8080/documentation/preferences):
#   bash Tests/Scripts/docs.sh --preview Preferences
#
# The symbols come from the compiler's extractor over the tools package's debug build, which
# builds every library module with both of the library's traits on (so PreferencesService's
# and PreferencesConfiguration's trait-gated API is there), and `docc` turns each catalog and
# its symbols into an archive. swift-docc-plugin is not used: it cannot turn traits on, and it
# leaves out the symbols of re-exported modules (swiftlang/swift-docc-plugin#113), which is how
# four of Preferences' public types reach it (declared in DomainStorage); the extractor takes
# them when told which re-exported module to include (`-experimental-allowed-reexported-modules`).
set -euo pipefail
# SwiftPM 6.3 passes a package's enabled traits to the compiler (-DConfiguration
# -DServiceLifecycle) in the order of a Set, which each swift process draws anew from its
# hash seed: every other `swift build` or plugin run on the same build directory compiled
# the library's modules again, 15-20 s each on the 2-core machine
# (swiftlang/swift-package-manager#10525). A fixed seed fixes the order; run-all.sh builds
# the tools package with the same one.
export SWIFT_DETERMINISTIC_HASHING=1
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

scratch=Tools/.build
preview=""
case ${1:-} in
    --scratch-path) scratch=$2 ;;
    --preview) preview=$2 ;;
esac
output="$scratch/documentation"
graphs="$scratch/symbol-graphs"
mkdir -p "$output"

targets=(PropertyList DeclaredSettings Preferences JournaldLogging PreferencesService PreferencesConfiguration)

swift build --package-path Tools --scratch-path "$scratch" >/dev/null
bin=$(swift build --package-path Tools --scratch-path "$scratch" --show-bin-path)
# Every C module a library module may import: the maps SwiftPM generates for C targets (one
# level down; deeper ones belong to Swift modules), the checked-out packages' and our own.
module_maps=()
while IFS= read -r map; do
    module_maps+=(-Xcc "-fmodule-map-file=$map")
done < <({ find "$bin" -maxdepth 2 -name module.modulemap; find "$scratch/checkouts" Sources -name module.modulemap; } 2>/dev/null | sort)

# Writes the symbol graphs of module $1 to $graphs/$1.
extract_symbols() {
    local module=$1 reexported=""
    # Preferences re-exports DomainStorage's four public types as its own.
    [[ $module == Preferences ]] && reexported=-experimental-allowed-reexported-modules=DomainStorage
    rm -rf "${graphs:?}/$module" && mkdir -p "$graphs/$module"
    # Synthesized symbols (an Equatable's `!=`, a RawRepresentable's `hashValue`) are the
    # standard library's, documented there; they are left out rather than curated here.
    swift-symbolgraph-extract -module-name "$module" -target "$(uname -m)-unknown-linux-gnu" \
        -I "$bin/Modules" "${module_maps[@]}" \
        -minimum-access-level public -skip-synthesized-members -emit-extension-block-symbols \
        ${reexported:+"$reexported"} -output-dir "$graphs/$module"
}

if [[ -n $preview ]]; then
    extract_symbols "$preview"
    exec docc preview "Sources/$preview/$preview.docc" --additional-symbol-graph-dir "$graphs/$preview" \
        --fallback-display-name "$preview" --fallback-bundle-identifier "$preview"
fi

for target in "${targets[@]}"; do
    echo "docs: building $target"
    extract_symbols "$target"
    rm -rf "$output/$target.doccarchive"
    docc convert "Sources/$target/$target.docc" --additional-symbol-graph-dir "$graphs/$target" \
        --fallback-display-name "$target" --fallback-bundle-identifier "$target" \
        --warnings-as-errors --output-path "$output/$target.doccarchive"

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
