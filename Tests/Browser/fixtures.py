"""Helpers for the settings page's browser tests: a private preferences world on disk, the
real `preferences-settings` server in it, the other real processes (`defaults`,
`defaults watch`, `preferences-demo writer`) and a real Chromium driven by Playwright.

Everything here talks to the programs only the way a user's other programs would: files on
disk, command lines, HTTP on loopback. Nothing reaches into the server.
"""

import http.client
import os
import plistlib
import queue
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.parse

# The directory holding `preferences-settings`, `defaults` and `preferences-demo`.
TOOLS_BIN = os.environ.get("SETTINGS_TOOLS_BIN", "")

# Debian's Chromium; Playwright's own browsers cannot be downloaded here (and must not be).
CHROMIUM = os.environ.get("SETTINGS_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"]

FIXTURE_DOMAIN = "com.example.settings"

# How long a test waits for something another process causes. Generous: the tests assert
# behaviour, never timing, and a loaded CI machine must not turn slowness into failure.
WAIT_SECONDS = 10.0


def tool(name):
    """The path of one of the tools under test; fails clearly when the directory is wrong."""
    path = os.path.join(TOOLS_BIN, name)
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"{path} is not an executable: set SETTINGS_TOOLS_BIN to the tools' directory")
    return path


class World:
    """A fresh preferences world: the user's domain files, the system (managed) directory and
    the schema search path, all in one temporary directory, plus the environment that points
    every process at them. One per test class, so classes cannot see each other's changes."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="settings-browser-")
        self.home = os.path.join(self.root, "preferences")
        self.system = os.path.join(self.root, "system")
        self.schemas = os.path.join(self.root, "schemas")
        for directory in (self.home, self.system, self.schemas):
            os.makedirs(directory, mode=0o755)
        self.env = dict(os.environ)
        self.env.update(
            PREFERENCES_HOME=self.home,
            PREFERENCES_SYSTEM_DIR=self.system,
            PREFERENCES_SCHEMA_PATH=self.schemas,
            HOME=self.root,
            LANG="C.UTF-8",
        )
        # The XDG variables of the machine running the tests must not lead a tool elsewhere.
        for name in ("XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_HOME", "XDG_DATA_DIRS"):
            self.env.pop(name, None)
        self.env["XDG_RUNTIME_DIR"] = os.path.join(self.root, "run")
        os.makedirs(self.env["XDG_RUNTIME_DIR"], mode=0o700)

    def cleanup(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def domain_file(self, domain):
        return os.path.join(self.home, f"{domain}.plist")

    def domain_bytes(self, domain):
        """The domain file's exact bytes (None when it does not exist), to prove a refused
        change wrote nothing."""
        try:
            with open(self.domain_file(domain), "rb") as handle:
                return handle.read()
        except FileNotFoundError:
            return None

    # -- the defaults tool -------------------------------------------------------------

    def defaults(self, *arguments, check=True):
        """Runs `defaults` in this world; returns its standard output without the newline."""
        result = subprocess.run(
            [tool("defaults"), *arguments], env=self.env, capture_output=True, text=True, timeout=60
        )
        if check and result.returncode != 0:
            raise AssertionError(
                f"defaults {' '.join(arguments)} exited {result.returncode}: {result.stderr.strip()}"
            )
        return result.stdout.rstrip("\n")

    def read(self, domain, key):
        return self.defaults("read", domain, key)

    # -- declarations -------------------------------------------------------------------

    def write_fixture_bundle(self):
        """The Settings.bundle of com.example.settings, with every control kind the page
        draws, a strings table in UTF-16 (as Xcode writes them) and a child pane."""
        bundle = os.path.join(self.schemas, f"{FIXTURE_DOMAIN}.bundle")
        os.makedirs(os.path.join(bundle, "en.lproj"))
        root = {
            "StringsTable": "Root",
            "PreferenceSpecifiers": [
                {"Type": "PSGroupSpecifier", "Title": "GROUP_MAIN", "FooterText": "Settings of the example application."},
                {"Type": "PSToggleSwitchSpecifier", "Title": "Enabled", "Key": "Enabled", "DefaultValue": True},
                {"Type": "PSSliderSpecifier", "Key": "Volume", "MinimumValue": 0, "MaximumValue": 10, "DefaultValue": 5},
                {
                    "Type": "PSMultiValueSpecifier", "Title": "COUNT_TITLE", "Key": "Count",
                    "Values": [1, 2, 3], "Titles": ["ONE", "TWO", "THREE"], "DefaultValue": 1,
                },
                {
                    "Type": "PSRadioGroupSpecifier", "Title": "Theme", "Key": "Theme",
                    "Values": ["light", "dark"], "Titles": ["Light", "Dark"], "DefaultValue": "light",
                },
                {"Type": "PSTextFieldSpecifier", "Title": "Name", "Key": "Name"},
                {"Type": "PSTextFieldSpecifier", "Title": "Password", "Key": "Password", "IsSecure": True},
                {"Type": "PSTitleValueSpecifier", "Title": "Version", "Key": "Version", "DefaultValue": "1.0"},
                {"Type": "PSToggleSwitchSpecifier", "Title": "Managed", "Key": "Managed", "DefaultValue": False},
                {"Type": "PSChildPaneSpecifier", "Title": "ADVANCED", "File": "Advanced"},
            ],
        }
        advanced = {
            "StringsTable": "Root",
            "PreferenceSpecifiers": [
                {"Type": "PSGroupSpecifier", "Title": "Debugging"},
                {"Type": "PSToggleSwitchSpecifier", "Title": "Debug", "Key": "Debug", "DefaultValue": False},
            ],
        }
        with open(os.path.join(bundle, "Root.plist"), "wb") as handle:
            plistlib.dump(root, handle)
        with open(os.path.join(bundle, "Advanced.plist"), "wb") as handle:
            plistlib.dump(advanced, handle)
        strings = {
            "GROUP_MAIN": "Main", "COUNT_TITLE": "Count",
            "ONE": "One", "TWO": "Two", "THREE": "Three", "ADVANCED": "Advanced",
        }
        text = "".join(f'"{key}" = "{value}";\n' for key, value in strings.items())
        # UTF-16 little-endian with a byte-order mark: what Xcode ships, and the case a
        # reader that assumes UTF-8 gets wrong.
        with open(os.path.join(bundle, "en.lproj", "Root.strings"), "wb") as handle:
            handle.write(b"\xff\xfe" + text.encode("utf-16-le"))

    def write_managed(self, domain, values):
        """Forced values, as an administrator's policy installs them: a binary plist in
        `<system>/managed`, readable by everyone and writable by root only."""
        managed = os.path.join(self.system, "managed")
        os.makedirs(managed, mode=0o755, exist_ok=True)
        os.chmod(managed, 0o755)
        path = os.path.join(managed, f"{domain}.plist")
        with open(path, "wb") as handle:
            plistlib.dump(values, handle, fmt=plistlib.FMT_BINARY)
        os.chmod(path, 0o644)


class LineProcess:
    """A child process whose standard output is read line by line on a thread, so a test can
    wait for a line with a timeout and the pipe never fills up however much it prints."""

    def __init__(self, arguments, env, stdin=False):
        self.arguments = arguments
        self.process = subprocess.Popen(
            arguments,
            env=env,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.lines = queue.Queue()
        self.stderr_lines = queue.Queue()
        self.seen = []  # every line read so far, for failure messages
        self.errors = []
        threading.Thread(target=self._pump, args=(self.process.stdout, self.lines, self.seen), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.process.stderr, self.stderr_lines, self.errors), daemon=True).start()

    @staticmethod
    def _pump(stream, lines, seen):
        for line in stream:
            line = line.rstrip("\n")
            seen.append(line)
            lines.put(line)
        lines.put(None)  # end of output

    def next_line(self, timeout=WAIT_SECONDS, stream=None):
        """The next line, or an AssertionError naming what the process did print."""
        try:
            line = (stream or self.lines).get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"{os.path.basename(self.arguments[0])} printed no line in {timeout} s "
                f"(stdout so far: {self.seen!r}, stderr: {self.errors!r})"
            ) from None
        if line is None:
            raise AssertionError(
                f"{os.path.basename(self.arguments[0])} ended (status {self.process.wait()}) "
                f"with stdout {self.seen!r} and stderr {self.errors!r}"
            )
        return line

    def wait_for_line(self, predicate, timeout=WAIT_SECONDS, stream=None):
        """The first line (from now on) that satisfies `predicate`."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(
                    f"{os.path.basename(self.arguments[0])} printed no matching line in {timeout} s "
                    f"(stdout: {self.seen!r}, stderr: {self.errors!r})"
                )
            line = self.next_line(timeout=remaining, stream=stream)
            if predicate(line):
                return line

    def send(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def stop(self):
        """Ends the process we started (by its own handle, never by name)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream:
                try:
                    stream.close()
                except OSError:
                    pass


class Server:
    """The real `preferences-settings`, in a world. Its first line of output is the address
    with the token; the rest of its output is kept for failure messages."""

    def __init__(self, world):
        self.world = world
        self.child = LineProcess([tool("preferences-settings"), "--port", "0"], world.env)
        try:
            self._read_address()
        except BaseException:
            self.child.stop()  # the caller gets no Server to stop
            raise
        self.origin = f"http://127.0.0.1:{self.port}"

    def _read_address(self):
        self.url = self.child.next_line(timeout=30)
        parsed = urllib.parse.urlsplit(self.url)
        if parsed.scheme != "http" or parsed.hostname != "127.0.0.1" or not parsed.port:
            raise AssertionError(f"the first line of preferences-settings is not its address: {self.url!r}")
        self.port = parsed.port
        self.token = urllib.parse.parse_qs(parsed.query).get("token", [""])[0]
        if not self.token:
            raise AssertionError(f"the address has no token: {self.url!r}")

    def stop(self):
        self.child.stop()

    def output(self):
        return "\n".join(self.child.seen + self.child.errors)

    # -- plain HTTP, for what a browser will not send (a foreign Host, a missing header) ---

    def request(self, method, path, body=None, headers=None, host=None):
        """One request on a fresh connection; returns (status, headers, body bytes)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            # skip_host lets a test send a Host that is not ours (as a rebinding page would).
            connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            connection.putheader("Host", host or f"127.0.0.1:{self.port}")
            for name, value in (headers or {}).items():
                connection.putheader(name, value)
            data = body.encode() if isinstance(body, str) else body
            if data is not None:
                connection.putheader("Content-Length", str(len(data)))
            connection.endheaders(data)
            response = connection.getresponse()
            return response.status, response.headers, response.read()
        finally:
            connection.close()

    def session_cookie(self):
        """The cookie a first visit with the token sets, as a `Cookie` header value."""
        status, headers, _ = self.request("GET", f"/?token={urllib.parse.quote(self.token)}")
        if status != 303:
            raise AssertionError(f"a first visit with the token answered {status}, not 303")
        cookie = headers.get("Set-Cookie", "")
        if not cookie:
            raise AssertionError("a first visit with the token set no cookie")
        return cookie.split(";", 1)[0]


class Browser:
    """One headless Chromium for a test class; each test gets its own context (no shared
    cookies or state between tests)."""

    def __init__(self):
        from playwright.sync_api import sync_playwright

        self.playwright = sync_playwright().start()
        self.browser = self.playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)

    def new_page(self, server, path="/", viewport=None):
        """A page that has visited the server's address (so holds its cookie) and then
        `path`. Console errors and failed requests are kept on `page.problems`."""
        context = self.browser.new_context(viewport=viewport or {"width": 1100, "height": 900})
        context.set_default_timeout(WAIT_SECONDS * 1000)
        page = context.new_page()
        page.problems = []
        page.on("console", lambda message: message.type == "error" and page.problems.append(message.text))
        page.on("pageerror", lambda error: page.problems.append(str(error)))
        page.goto(server.url)  # sets the cookie, redirects to /
        if path != "/":
            page.goto(server.origin + path)
        return page

    def close(self):
        try:
            self.browser.close()
        finally:
            self.playwright.stop()


def wait_until(condition, timeout=WAIT_SECONDS, interval=0.05, message="condition"):
    """Polls `condition` until it returns something true; for state another process owns."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = condition()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {message} (last: {last!r})")
