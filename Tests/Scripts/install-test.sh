#!/usr/bin/env bash
# Installs swift-preferences into a temporary prefix with Tests/Scripts/install.sh and checks
# what a user gets: the installed defaults works against a private preferences home, man
# renders its page (NAME, every verb, examples), the completions are there and the bash one
# parses, the installed defaults finds the greeter's schema, installing again changes nothing,
# uninstalling leaves no installed file behind, and neither does uninstalling after an install
# that failed partway.
#
#   bash Tests/Scripts/install-test.sh [--scratch-path DIR] [--configuration C]   (passed on to install.sh;
#   the suite passes its own debug build, so nothing is built again)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

fail() {
    echo "install-test: FAIL: $*" >&2
    exit 1
}

command -v man >/dev/null || fail "man is not installed (bash Tests/Scripts/install-dependencies.sh installs man-db)"

work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT
prefix=$work/prefix
mkdir -- "$prefix"
# Something of someone else's in the prefix, which neither install nor uninstall may touch.
mkdir -p -- "$prefix/bin"
echo "not ours" >"$prefix/bin/other-tool"

bash Tests/Scripts/install.sh --prefix "$prefix" "$@" >"$work/install.log" 2>&1 || {
    cat "$work/install.log" >&2
    fail "install.sh --prefix $prefix failed"
}
manifest=$prefix/share/swift-preferences/install-manifest
[[ -s $manifest ]] || fail "no install manifest at $manifest"

# The executables.
for executable in defaults preferences-fleet preferences-greeter preferences-demo preferences-config-example preferences-config-server preferences-settings preferences-keygen; do
    [[ -x $prefix/bin/$executable ]] || fail "$prefix/bin/$executable is not installed or not executable"
done

# The installed defaults, against a private preferences home.
home=$work/home
mkdir -- "$home"
run_defaults() {
    env -i PATH=/usr/bin:/bin HOME="$home" PREFERENCES_HOME="$home/preferences" "$prefix/bin/defaults" "$@"
}
run_defaults write com.example.installed Greeting -string hello || fail "installed defaults write failed"
value=$(run_defaults read com.example.installed Greeting) || fail "installed defaults read failed"
[[ $value == hello ]] || fail "installed defaults read printed '$value', not 'hello'"
[[ -f $home/preferences/com.example.installed.plist ]] || fail "the write did not land in the private PREFERENCES_HOME"

# The units and catalog; the unit starts the greeter in this prefix.
unit=$prefix/lib/systemd/user/preferences-greeter.service
[[ -s $unit ]] || fail "$unit is not installed"
grep -qx "ExecStart=$prefix/bin/preferences-greeter" "$unit" || fail "$unit does not start $prefix/bin/preferences-greeter"
[[ -s $prefix/lib/systemd/catalog/swift-preferences.catalog ]] || fail "the journald catalog is not installed"
fleet_unit=$prefix/lib/systemd/system/preferences-fleet.service
[[ -s $fleet_unit ]] || fail "$fleet_unit is not installed"
grep -q "^ExecStart=$prefix/bin/preferences-fleet --endpoints" "$fleet_unit" || fail "$fleet_unit does not start $prefix/bin/preferences-fleet"
settings_unit=$prefix/lib/systemd/user/preferences-settings.service
[[ -s $settings_unit ]] || fail "$settings_unit is not installed"
grep -q "^ExecStart=$prefix/bin/preferences-settings --port" "$settings_unit" || fail "$settings_unit does not start $prefix/bin/preferences-settings"
settings_page=$prefix/share/man/man1/preferences-settings.1
rendered=$(MANWIDTH=100 man -l "$settings_page" 2>"$work/man.err") || { cat "$work/man.err" >&2; fail "man -l $settings_page failed"; }
[[ ! -s $work/man.err ]] || fail "man -l $settings_page warned: $(cat "$work/man.err")"
grep -q 'token' <<<"$rendered" || fail "the preferences-settings man page does not say how the token guards it"
# The installed server starts, prints its address first, and serves the list page to its token.
settings_log=$work/settings.out
env -i PATH=/usr/bin:/bin HOME="$home" PREFERENCES_HOME="$home/preferences" "$prefix/bin/preferences-settings" --port 0 >"$settings_log" 2>"$work/settings.err" &
settings_pid=$!
for _ in $(seq 100); do [[ -s $settings_log ]] && break; sleep 0.1; done
url=$(head -n 1 "$settings_log")
[[ $url =~ ^http://127\.0\.0\.1:[0-9]+/\?token=[0-9a-f]{64}$ ]] || { kill "$settings_pid"; fail "preferences-settings printed '$url' first, not its address"; }
python3 - "$url" <<'PY' || { kill "$settings_pid"; fail "the installed preferences-settings did not serve its list page"; }
import sys, urllib.request
# The first visit sets the cookie and redirects to the page without the token.
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
page = opener.open(sys.argv[1], timeout=10).read().decode()
assert 'data-domain="com.example.installed"' in page, page[:500]
PY
kill "$settings_pid"
wait "$settings_pid" 2>/dev/null || true

# The greeter's schema, where a store finds it: preferences/schemas under a $XDG_DATA_DIRS entry.
schema=$prefix/share/preferences/schemas/org.swift-preferences.greeter.plist
[[ -s $schema ]] || fail "$schema is not installed"
described=$(env -i PATH=/usr/bin:/bin HOME="$home" PREFERENCES_HOME="$home/preferences" XDG_DATA_HOME="$home/.local/share" \
    XDG_DATA_DIRS="$prefix/share" "$prefix/bin/defaults" describe org.swift-preferences.greeter) ||
    fail "the installed defaults does not find the greeter's schema in $prefix/share"
grep -qF "(schema $schema)" <<<"$described" || fail "defaults describe does not name $schema: $described"
# The fleet service's contract is in its --help and its man page.
fleet_help=$("$prefix/bin/preferences-fleet" --help) || fail "preferences-fleet --help failed"
for word in '--endpoints' 'fleet/<domain>' 'groups/<group>/<domain>' 'hosts/<hostname>/<domain>' 'PREFERENCES_SYSTEM_DIR' 'Examples:'; do
    grep -qF -- "$word" <<<"$fleet_help" || fail "preferences-fleet --help does not mention $word"
done
# The follower's options are the follow subcommand's (the default), so its help lists them.
follow_help=$("$prefix/bin/preferences-fleet" follow --help) || fail "preferences-fleet follow --help failed"
for word in '--endpoints' '--prefix' '--group' 'PREFERENCES_SYSTEM_DIR' 'Examples:'; do
    grep -qF -- "$word" <<<"$follow_help" || fail "preferences-fleet follow --help does not mention $word"
done
fleet_page=$prefix/share/man/man1/preferences-fleet.1
rendered=$(MANWIDTH=100 man -l "$fleet_page" 2>"$work/man.err") || { cat "$work/man.err" >&2; fail "man -l $fleet_page failed"; }
[[ ! -s $work/man.err ]] || fail "man -l $fleet_page warned: $(cat "$work/man.err")"
grep -q 'hosts/<hostname>/<domain>' <<<"$rendered" || fail "the preferences-fleet man page does not give the key layout"
# The administrator's template and check: each with its own help, examples and the --schema
# escape for a machine without the schema installed, and each in the man page.
for subcommand in template check; do
    sub_help=$("$prefix/bin/preferences-fleet" "$subcommand" --help) || fail "preferences-fleet $subcommand --help failed"
    for word in 'Examples:' "preferences-fleet $subcommand com.example.app" '--schema' 'PREFERENCES_SCHEMA_PATH'; do
        grep -qF -- "$word" <<<"$sub_help" || fail "preferences-fleet $subcommand --help does not mention $word"
    done
    grep -qF "preferences-fleet $subcommand com.example.app" <<<"$rendered" || fail "the preferences-fleet man page has no example of $subcommand"
done
# The loop's status and rollout: their contracts (the status layout, exit statuses, resume and
# abort) in their help and the man page.
for subcommand in status rollout; do
    sub_help=$("$prefix/bin/preferences-fleet" "$subcommand" --help) || fail "preferences-fleet $subcommand --help failed"
    for word in 'Examples:' "preferences-fleet $subcommand com.example.app" '<prefix>status/<hostname>' 'Exit status:' '--endpoints'; do
        grep -qF -- "$word" <<<"$sub_help" || fail "preferences-fleet $subcommand --help does not mention $word"
    done
    grep -qF "preferences-fleet $subcommand com.example.app" <<<"$rendered" || fail "the preferences-fleet man page has no example of $subcommand"
done
for word in '--resume' '--abort' '--max-invalid' '<prefix>rollouts/<domain>'; do
    grep -qF -- "$word" <<<"$("$prefix/bin/preferences-fleet" rollout --help)" || fail "preferences-fleet rollout --help does not mention $word"
done

# The man page: man renders it, with its NAME section, every verb and their examples.
page=$prefix/share/man/man1/defaults.1
[[ -s $page ]] || fail "$page is not installed"
rendered=$(MANWIDTH=100 man -l "$page" 2>"$work/man.err") || { cat "$work/man.err" >&2; fail "man -l $page failed"; }
[[ ! -s $work/man.err ]] || fail "man -l $page warned: $(cat "$work/man.err")"
grep -q '^NAME' <<<"$rendered" || fail "man -l $page shows no NAME section"
# The dash between name and description is an em dash, or -- in the C locale.
grep -Eq '^ +defaults (-|--|—) Read, write' <<<"$rendered" || fail "the NAME section does not name defaults"
verbs=$(run_defaults --help | sed -n '/^SUBCOMMANDS:/,/^$/p' | sed -En 's/^  ([a-z][a-z-]*) .*/\1/p')
[[ $(wc -w <<<"$verbs") -ge 16 ]] || fail "defaults --help listed only: $verbs"
for verb in $verbs; do
    grep -Eq "^ +defaults $verb( |\$)" <<<"$rendered" || fail "the man page shows no example of the verb $verb"
done
grep -q 'Examples:' <<<"$rendered" || fail "the man page has no Examples"

# The completions.
for file in share/bash-completion/completions/defaults share/zsh/site-functions/_defaults share/fish/vendor_completions.d/defaults.fish; do
    [[ -s $prefix/$file ]] || fail "$prefix/$file is missing or empty"
done
bash -n "$prefix/share/bash-completion/completions/defaults" || fail "the bash completion does not parse"

# Installing again over the same prefix is the same install. The build was checked by the
# first install; the later ones install what it built (--no-build), to keep the suite short.
cp -- "$manifest" "$work/manifest.first"
bash Tests/Scripts/install.sh --prefix "$prefix" "$@" --no-build >"$work/install-again.log" 2>&1 || {
    cat "$work/install-again.log" >&2
    fail "a second install.sh --prefix $prefix failed"
}
cmp -s "$manifest" "$work/manifest.first" || fail "a second install recorded something else: $(diff "$work/manifest.first" "$manifest")"

# Uninstalling removes every installed file and directory, and only those.
bash Tests/Scripts/install.sh --prefix "$prefix" --uninstall >"$work/uninstall.log" 2>&1 || {
    cat "$work/uninstall.log" >&2
    fail "install.sh --prefix $prefix --uninstall failed"
}
left=$(cd "$prefix" && find . -mindepth 1 | sort)
[[ $left == $'./bin\n./bin/other-tool' ]] || fail "after uninstalling, the prefix holds: $left"
[[ $(cat "$prefix/bin/other-tool") == "not ours" ]] || fail "uninstall changed a file it did not install"
if bash Tests/Scripts/install.sh --prefix "$prefix" --uninstall >/dev/null 2>&1; then
    fail "a second uninstall succeeded with nothing installed"
fi

# An install that fails partway (a file of someone else's where the zsh completions' directory
# goes) has recorded what it installed before failing, so uninstalling removes that, and only that.
mkdir -- "$prefix/share"
echo "not ours" >"$prefix/share/zsh"
if bash Tests/Scripts/install.sh --prefix "$prefix" "$@" --no-build >"$work/install-failing.log" 2>&1; then
    fail "an install succeeded with $prefix/share/zsh a file"
fi
[[ -s $manifest ]] || fail "the failed install left no manifest: $(cat "$work/install-failing.log")"
bash Tests/Scripts/install.sh --prefix "$prefix" --uninstall >"$work/uninstall-failed.log" 2>&1 || {
    cat "$work/uninstall-failed.log" >&2
    fail "install.sh --prefix $prefix --uninstall after a failed install failed"
}
left=$(cd "$prefix" && find . -mindepth 1 | sort)
[[ $left == $'./bin\n./bin/other-tool\n./share\n./share/zsh' ]] || fail "after a failed install and an uninstall, the prefix holds: $left"

echo "install-test: installed into $prefix, ran defaults and man, uninstalled cleanly, after a failed install too"
