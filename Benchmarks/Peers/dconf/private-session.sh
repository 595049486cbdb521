# Sourced by the scripts that measure GNOME dconf (Peers/dconf/run.sh, cli-startup.sh): the
# Debian packages they need, and a private session bus and dconf-service under a private HOME,
# started by hand so the caller knows their PIDs and stops them.
#
#   source Benchmarks/Peers/dconf/private-session.sh
#   install_missing_packages PACKAGE...
#   start_private_dconf WORK-DIR      # exports HOME, XDG_CONFIG_HOME, XDG_RUNTIME_DIR and
#                                     # DBUS_SESSION_BUS_ADDRESS into WORK-DIR
#   trap 'stop_private_dconf; rm -rf "$work"' EXIT

dconf_bus_pid=""
dconf_service_pid=""

# Installs the packages not installed yet, waiting for another process's dpkg lock.
install_missing_packages() {
    local missing=() package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    ((${#missing[@]})) || return 0
    echo "installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=600 update -q
    apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}"
}

# dconf keeps its database in $XDG_CONFIG_HOME/dconf/user and its change flag in
# $XDG_RUNTIME_DIR/dconf/user: both private to the run, in WORK-DIR.
start_private_dconf() {
    local work=$1
    export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_RUNTIME_DIR="$work/run"
    mkdir -p "$XDG_CONFIG_HOME" && mkdir -m 700 "$XDG_RUNTIME_DIR"
    export DBUS_SESSION_BUS_ADDRESS="unix:path=$work/bus"
    # (Its complaint that it may not raise its fd limit, as non-init root, is harmless.)
    dbus-daemon --session --nofork --nopidfile --address="$DBUS_SESSION_BUS_ADDRESS" 2>/dev/null &
    dconf_bus_pid=$!
    for _ in $(seq 100); do [[ -S $work/bus ]] && break; sleep 0.05; done
    [[ -S $work/bus ]] || { echo "dconf: the private session bus did not start" >&2; return 1; }
    # Started here rather than by bus activation, so the caller can stop it by its PID.
    /usr/libexec/dconf-service &
    dconf_service_pid=$!
    for _ in $(seq 100); do
        dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
            org.freedesktop.DBus.NameHasOwner string:ca.desrt.dconf 2>/dev/null | grep -q 'boolean true' && break
        sleep 0.05
    done
}

# Stops what start_private_dconf started.
stop_private_dconf() {
    [[ -n $dconf_service_pid ]] && kill -TERM "$dconf_service_pid" 2>/dev/null && wait "$dconf_service_pid" 2>/dev/null
    [[ -n $dconf_bus_pid ]] && kill -TERM "$dconf_bus_pid" 2>/dev/null && wait "$dconf_bus_pid" 2>/dev/null
    return 0
}
