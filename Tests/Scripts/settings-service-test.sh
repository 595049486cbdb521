#!/usr/bin/env bash
# The settings pages' user unit (systemd/preferences-settings.service) under a real systemd
# user manager: installed as its own comment says, verified, started, serving this user's
# domains to the token it wrote to $XDG_RUNTIME_DIR, stopped cleanly. Run it inside
# with-systemd-user.sh with the build's bin directory (holding preferences-settings and defaults):
#
#   bash Tests/Scripts/with-systemd-user.sh bash Tests/Scripts/settings-service-test.sh "$(swift build --package-path Tools --show-bin-path)"
set -euo pipefail

bin=${1:?usage: settings-service-test.sh BIN_DIR (the directory holding preferences-settings and defaults)}
[[ -n ${XDG_RUNTIME_DIR:-} && $HOME == /tmp/swift-preferences-service-home.* ]] || {
    echo "error: run this through Tests/Scripts/with-systemd-user.sh, which isolates HOME and systemd" >&2
    exit 2
}
repository=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
unit=preferences-settings.service
units=$HOME/.config/systemd/user
url_file=$XDG_RUNTIME_DIR/preferences-settings.url

fail() {
    echo "FAIL: $*" >&2
    systemctl --user status --no-pager "$unit" >&2 || true
    journalctl --no-pager -n 30 "_SYSTEMD_UNIT=$unit" + "_SYSTEMD_USER_UNIT=$unit" >&2 || true
    exit 1
}
ok() { echo "ok: $*"; }

# Install as the unit's comment says; a drop-in lets the system choose the port, so the test
# never collides with anything on 8765 (the knob the unit documents).
install -D -m 755 "$bin/preferences-settings" "$HOME/.local/bin/preferences-settings"
install -D -m 644 "$repository/systemd/$unit" "$units/$unit"
install -D -m 644 /dev/stdin "$units/$unit.d/port.conf" <<<$'[Service]\nEnvironment=PREFERENCES_SETTINGS_PORT=0'
output=$(systemd-analyze verify --user "$units/$unit" 2>&1) || fail "systemd-analyze verify --user $unit failed: $output"
[[ -z $output ]] || fail "systemd-analyze verify --user $unit warned: $output"
ok "systemd-analyze verify --user $unit: no errors, no warnings"

"$bin/defaults" write com.example.served Greeting -string hello
systemctl --user daemon-reload
systemctl --user start "$unit" || fail "systemctl --user start $unit failed"
for _ in $(seq 100); do [[ -s $url_file ]] && break; sleep 0.05; done
[[ -s $url_file ]] || fail "$url_file was not written"
[[ $(stat -c %a "$url_file") == 600 ]] || fail "$url_file has mode $(stat -c %a "$url_file"), not 600: it holds the token"
url=$(<"$url_file")
[[ $url =~ ^http://127\.0\.0\.1:[0-9]+/\?token=[0-9a-f]{64}$ ]] || fail "$url_file holds '$url', not the address with its token"
ok "started; the address with its token is in $url_file (mode 600)"

python3 - "$url" <<'PY' || fail "the service did not serve this user's domain to its token, or served it without"
import sys, urllib.error, urllib.request
url = sys.argv[1]
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
page = opener.open(url, timeout=10).read().decode()
assert 'data-domain="com.example.served"' in page, "the list page does not list com.example.served"
page = opener.open(url.split("?")[0] + "domains/com.example.served", timeout=10).read().decode()
assert 'data-row="Greeting"' in page and 'value="hello"' in page, "the domain page does not show Greeting = hello"
try:
    urllib.request.urlopen(url.split("?")[0], timeout=10)
    sys.exit("a request without the token was served")
except urllib.error.HTTPError as error:
    assert error.code == 401, error.code
PY
ok "serves the user's domains (list and domain page) to its token, 401 without it"

systemctl --user stop "$unit" || fail "systemctl --user stop $unit failed"
result=$(systemctl --user show -p Result --value "$unit")
[[ $result == success ]] || fail "after stop: Result=$result"
[[ ! -e $url_file ]] || fail "$url_file is still there after stop"
ok "stopped with Result=success; the address file is gone"
echo "settings service test: all checks passed"
