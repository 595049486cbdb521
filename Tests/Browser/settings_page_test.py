"""The settings page in a real browser, against the real server and real other processes.

Run through Tests/Scripts/browser-tests.sh, or directly:

    SETTINGS_TOOLS_BIN=DIR python3 Tests/Browser/settings_page_test.py            # the tests
    SETTINGS_TOOLS_BIN=DIR python3 Tests/Browser/settings_page_test.py --measure 200 report.md
    SETTINGS_TOOLS_BIN=DIR python3 Tests/Browser/settings_page_test.py --screenshot page.png
    SETTINGS_TOOLS_BIN=DIR python3 Tests/Browser/settings_page_test.py -k undo   # some tests

DIR holds `preferences-settings`, `defaults` and `preferences-demo`. The tests assert what
the page and the server do, never how fast: timing is only reported, by --measure.
"""

import json
import math
import os
import plistlib
import statistics
import subprocess
import sys
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fixtures import (  # noqa: E402  (the path above must be set first)
    FIXTURE_DOMAIN,
    WAIT_SECONDS,
    Browser,
    LineProcess,
    Server,
    World,
    tool,
    wait_until,
)

FREE_DOMAIN = "com.example.free"
TIMEOUT_MS = WAIT_SECONDS * 1000

# Records every `preferences:applied` the page dispatches, with the wall-clock time (ms) it
# was dispatched at and the Volume shown then: the measurement matches a change by the value
# the page shows, and tests wait on the record instead of guessing when a reply has landed.
APPLIED_RECORDER = """() => {
  if (window.__applied) return;
  window.__applied = [];
  document.addEventListener("preferences:applied", (event) => {
    const at = performance.timeOrigin + performance.now();
    const volume = document.querySelector('[data-key="Volume"][data-part="number"]');
    for (const key of event.detail.keys) {
      window.__applied.push({ key, at, volume: volume ? volume.value : null });
    }
  });
}"""

# Posts a change exactly as a script of the page could, with the page's CSRF token and
# cookie, and returns the status: how a test sends what the page's own controls never would.
POST_CHANGES = """async ({ path, body }) => {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  return { status: response.status, text: await response.text() };
}"""


def read_or_none(world, domain, key):
    """`defaults read`, or None when the domain's own file does not hold the key."""
    try:
        return world.read(domain, key)
    except AssertionError:
        return None


def parse_watch_line(line):
    """`KEY: OLD → NEW` (the plain format of `defaults watch`) as (key, old, new)."""
    key, _, change = line.partition(": ")
    old, _, new = change.partition(" → ")
    return key, old, new


def open_domain(browser, server, domain=FIXTURE_DOMAIN, pane=None):
    """A page of `domain` whose live feed is open. The feed's response starting means the
    server has subscribed (it answers the request only after), so a change made after this
    returns cannot be missed; without that wait a test would race the page's EventSource."""
    path = f"/domains/{domain}" + (f"/panes/{pane}" if pane else "")
    page = browser.new_page(server)
    with page.expect_response(lambda response: "/events" in response.url, timeout=TIMEOUT_MS) as feed:
        page.goto(server.origin + path)
    if feed.value.status != 200:
        raise AssertionError(f"the live feed of {path} answered {feed.value.status}")
    page.evaluate(APPLIED_RECORDER)
    return page


def applied_count(page):
    return page.evaluate("() => window.__applied.length")


def wait_applied_after(page, count, key):
    """Waits until the page has dispatched `preferences:applied` naming `key` after the
    first `count` records: its reply (or live update) has been drawn."""
    page.wait_for_function(
        "([count, key]) => window.__applied.slice(count).some((entry) => entry.key === key)",
        arg=[count, key],
        timeout=TIMEOUT_MS,
    )


def close(page):
    """Closes a test's page, failing the test if its script threw: an exception in the page
    is a broken page even when the assertions happened to pass."""
    problems = [problem for problem in page.problems if not problem.startswith("Failed to load resource")]
    page.context.close()
    if problems:
        raise AssertionError(f"the page reported errors: {problems}")


class BrowserTestCase(unittest.TestCase):
    """One world, one server and one browser per class; each test opens its own pages."""

    world = server = browser = None

    @classmethod
    def prepare(cls, world):
        """Writes what the class's server must find at start."""

    @classmethod
    def setUpClass(cls):
        cls.world = World()
        try:
            cls.prepare(cls.world)
            cls.server = Server(cls.world)
            cls.browser = Browser()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        for part in (cls.browser, cls.server):
            if part is not None:
                try:
                    (part.close if part is cls.browser else part.stop)()
                except Exception:  # a failed teardown must not hide the test's own result
                    pass
        if cls.server is not None and os.environ.get("SETTINGS_SHOW_SERVER_OUTPUT"):
            print(cls.server.output(), file=sys.stderr)
        cls.world.cleanup()

    def open(self, domain=FIXTURE_DOMAIN, pane=None):
        page = open_domain(self.browser, self.server, domain, pane)
        self.addCleanup(close, page)
        return page

    def defaults(self, *arguments):
        return self.world.defaults(*arguments)

    def read(self, key, domain=FIXTURE_DOMAIN):
        return read_or_none(self.world, domain, key)

    def wait_on_disk(self, key, expected, domain=FIXTURE_DOMAIN):
        """Waits until `defaults read` (another process) shows `expected`."""
        wait_until(lambda: self.read(key, domain) == expected, message=f"defaults read {domain} {key} to print {expected!r}")


def prepare_fixture(world):
    world.write_fixture_bundle()
    world.write_managed(FIXTURE_DOMAIN, {"Managed": True})


class SettingsBundlePageTests(BrowserTestCase):
    """The page of a domain declared by a Settings.bundle (see fixtures.write_fixture_bundle)."""

    @classmethod
    def prepare(cls, world):
        prepare_fixture(world)

    # 1
    def test_clicking_a_switch_writes_the_domain_and_other_processes_hear_it(self):
        watcher = LineProcess([tool("defaults"), "watch", FIXTURE_DOMAIN], self.world.env)
        self.addCleanup(watcher.stop)
        # The watcher says on standard error when it listens; a change before that is lost.
        watcher.wait_for_line(lambda line: line.startswith("Watching"), stream=watcher.stderr_lines)
        page = self.open()
        switch = page.locator('input[type=checkbox][role=switch][data-key="Enabled"]')
        was_on = switch.is_checked()
        switch.click()
        expected = "0" if was_on else "1"
        self.wait_on_disk("Enabled", expected)
        key, _, new = parse_watch_line(watcher.wait_for_line(lambda line: line.startswith("Enabled:")))
        self.assertEqual((key, new), ("Enabled", expected))
        self.assertEqual(switch.is_checked(), not was_on)

    # 2
    def test_a_change_from_another_process_appears_without_reloading(self):
        page = self.open()
        # Marks the document: a reload would make a new one without the mark.
        page.evaluate("() => { window.__sameDocument = true; }")
        current = page.locator('input[type=range][data-key="Volume"]').input_value()
        target = 3 if current == "7" else 7
        self.defaults("write", FIXTURE_DOMAIN, "Volume", "-int", str(target))
        page.wait_for_function(
            """(target) => {
                 const range = document.querySelector('input[type=range][data-key="Volume"]');
                 const number = document.querySelector('input[type=number][data-key="Volume"][data-part=number]');
                 return Number(range.value) === target && Number(number.value) === target;
               }""",
            arg=target,
            timeout=5000,
        )
        switch = page.locator('input[type=checkbox][role=switch][data-key="Enabled"]')
        turn_on = not switch.is_checked()
        self.defaults("write", FIXTURE_DOMAIN, "Enabled", "-bool", "true" if turn_on else "false")
        page.wait_for_function(
            """(on) => document.querySelector('input[type=checkbox][data-key="Enabled"]').checked === on""",
            arg=turn_on,
            timeout=5000,
        )
        self.assertTrue(page.evaluate("() => window.__sameDocument === true"), "the page reloaded")
        layer = page.get_attribute('[data-origin-for="Volume"]', "data-layer")
        self.assertEqual(layer, "app", "a value in the domain's own file comes from the app layer")

    # 2b
    def test_deletions_and_undo_from_another_process_are_drawn_too(self):
        self.defaults("write", FIXTURE_DOMAIN, "Volume", "-int", "9")
        page = self.open()
        origin = '[data-origin-for="Volume"]'
        self.assertEqual(page.get_attribute(origin, "data-layer"), "app")
        self.assertEqual(page.locator('button[data-reset-for="Volume"]').count(), 1)
        # Deleted from the domain's file: the declared default (5) shows again, from its layer.
        self.defaults("delete", FIXTURE_DOMAIN, "Volume")
        page.wait_for_function(
            """() => Number(document.querySelector('input[type=range][data-key="Volume"]').value) === 5
                     && document.querySelector('[data-origin-for="Volume"]').dataset.layer !== 'app'""",
            timeout=TIMEOUT_MS,
        )
        self.assertEqual(page.get_attribute(origin, "data-layer"), "declared")
        self.assertEqual(page.locator('button[data-reset-for="Volume"]').count(), 0, "a reset for a key the file lacks")
        # Undone by the defaults tool: the file's previous version, with 9, is back.
        self.defaults("undo", FIXTURE_DOMAIN)
        page.wait_for_function(
            """() => Number(document.querySelector('input[type=number][data-key="Volume"][data-part=number]').value) === 9""",
            timeout=TIMEOUT_MS,
        )
        self.assertEqual(page.get_attribute(origin, "data-layer"), "app")

    # 2c
    def test_radios_and_the_slider_commit_at_once(self):
        page = self.open()
        dark_checked = page.is_checked('input[type=radio][name="Theme"][data-key="Theme"][value="1"]')
        label = "Light" if dark_checked else "Dark"
        # Through the radio's label: what a user clicks, and proof the label is bound.
        page.locator("fieldset label", has_text=label).click()
        self.wait_on_disk("Theme", label.lower())
        self.assertEqual(page.locator("fieldset legend").count(), 1, "the radio group has no legend")

        slider = page.locator('input[type=range][data-key="Volume"]')
        target = 2 if slider.input_value() != "2" else 8
        count = applied_count(page)
        slider.fill(str(target))  # sets the value and fires input and change, as a drag does
        wait_until(lambda: (self.read("Volume") or "").strip() in (str(target), f"{target}.0"),
                   message=f"Volume to be {target} on disk")
        wait_applied_after(page, count, "Volume")
        self.assertEqual(
            float(page.locator('input[type=number][data-key="Volume"][data-part=number]').input_value()), target)

    # 2d
    def test_reset_removes_the_key_from_the_domain_file(self):
        self.defaults("write", FIXTURE_DOMAIN, "Name", "-string", "to be reset")
        page = self.open()
        reset = page.locator('button[data-reset-for="Name"]')
        self.assertEqual(reset.count(), 1)
        count = applied_count(page)
        reset.click()
        wait_until(lambda: self.read("Name") is None, message="Name to leave the domain file")
        wait_applied_after(page, count, "Name")
        page.wait_for_function(
            """() => !document.querySelector('button[data-reset-for="Name"]')""", timeout=TIMEOUT_MS)
        self.assertNotEqual(page.get_attribute('[data-origin-for="Name"]', "data-layer"), "app")
        self.assertEqual(page.locator('input[data-key="Name"]').input_value(), "")

    # 3
    def test_a_key_forced_by_policy_is_locked(self):
        page = self.open()
        row = page.locator('[data-row="Managed"]')
        self.assertIsNotNone(row.get_attribute("data-locked"), "the forced key's row lacks data-locked")
        controls = page.locator('[data-key="Managed"]')
        self.assertGreater(controls.count(), 0)
        for index in range(controls.count()):
            self.assertTrue(controls.nth(index).is_disabled(), "a control of the forced key is enabled")
        self.assertTrue(controls.first.is_checked(), "the forced value (true) is not shown")
        origin = page.locator('[data-origin-for="Managed"]')
        self.assertEqual(origin.get_attribute("data-layer"), "forced")
        self.assertIn("Set by policy", origin.text_content())
        # Nothing the page does may write the key behind the policy's back.
        before = self.world.domain_bytes(FIXTURE_DOMAIN)
        reply = page.evaluate(
            POST_CHANGES,
            {"path": f"/domains/{FIXTURE_DOMAIN}/changes", "body": {"changes": [{"key": "Managed", "value": {"toggle": False}}]}},
        )
        self.assertGreaterEqual(reply["status"], 400, f"a change to a forced key was accepted: {reply}")
        self.assertEqual(self.world.domain_bytes(FIXTURE_DOMAIN), before)

    # 4
    def test_a_value_the_declaration_refuses_is_shown_and_nothing_is_written(self):
        page = self.open()
        before = self.world.domain_bytes(FIXTURE_DOMAIN)
        number = page.locator('input[type=number][data-key="Volume"][data-part=number]')
        count = applied_count(page)
        number.fill("11")
        number.press("Enter")
        wait_applied_after(page, count, "Volume")
        message = page.locator('[data-message-for="Volume"]')
        page.wait_for_function(
            """() => document.querySelector('[data-message-for="Volume"]').textContent.trim() !== ''""",
            timeout=TIMEOUT_MS,
        )
        self.assertIn("10", message.text_content(), "the message does not say what the limit is")
        self.assertEqual(self.world.domain_bytes(FIXTURE_DOMAIN), before, "a refused value changed the domain file")
        # No number at all: typed into the field (a number input drops such text, so set it as
        # a script would and submit the form the way Enter does).
        count = applied_count(page)
        number.evaluate("(input) => { input.type = 'text'; input.value = 'loud'; input.dispatchEvent(new Event('input', { bubbles: true })); }")
        page.locator("button[data-save]").click()
        wait_applied_after(page, count, "Volume")
        self.assertNotEqual(message.text_content().strip(), "", "text that is no number was not refused")
        self.assertEqual(self.world.domain_bytes(FIXTURE_DOMAIN), before, "a value that is no number changed the domain file")

        # A choice that is not in the multi-value's list, sent as a script could.
        reply = page.evaluate(
            POST_CHANGES,
            {"path": f"/domains/{FIXTURE_DOMAIN}/changes", "body": {"changes": [{"key": "Count", "value": {"choice": 7}}]}},
        )
        self.assertEqual(reply["status"], 422, reply["text"])
        self.assertEqual(self.world.domain_bytes(FIXTURE_DOMAIN), before, "a refused choice changed the domain file")

    # 5
    def test_a_child_pane_opens_and_the_way_back_leads_to_root(self):
        page = self.open()
        with page.expect_navigation():
            page.locator('a[data-pane="Advanced"]').click()
        page.locator('[data-row="Debug"]').wait_for()
        self.assertIn("/panes/Advanced", page.url)
        self.assertEqual(page.locator('[data-row="Enabled"]').count(), 0, "the child pane shows Root's rows")
        # The child pane's controls work like Root's.
        switch = page.locator('input[type=checkbox][data-key="Debug"]')
        was_on = switch.is_checked()
        switch.click()
        self.wait_on_disk("Debug", "0" if was_on else "1")
        # The child pane's live feed: a change from another process is drawn there as well.
        self.defaults("write", FIXTURE_DOMAIN, "Debug", "-bool", "true" if was_on else "false")
        page.wait_for_function(
            """(on) => document.querySelector('input[type=checkbox][data-key="Debug"]').checked === on""",
            arg=was_on,
            timeout=TIMEOUT_MS,
        )
        page.go_back()
        page.locator('[data-row="Enabled"]').wait_for()
        self.assertEqual(page.locator('[data-row="Debug"]').count(), 0)

    # 6
    def test_undo_brings_back_the_previous_value_on_the_page_and_on_disk(self):
        # The domain's file must exist before the change: the library keeps no version from
        # before a file was created, so the very first write of a domain cannot be undone
        # (`defaults undo` says so too) and the page rightly disables its Undo then.
        self.defaults("write", FIXTURE_DOMAIN, "Theme", "-string", "light")
        page = self.open()
        select = page.locator('select[data-key="Count"]')
        previous_index = select.input_value()
        previous_on_disk = self.read("Count")
        new_index = "1" if previous_index != "1" else "2"
        count = applied_count(page)
        select.select_option(new_index)
        wait_applied_after(page, count, "Count")
        self.wait_on_disk("Count", str(int(new_index) + 1))  # Values are [1, 2, 3]
        page.locator("button[data-undo]").click()
        page.wait_for_function(
            """(index) => document.querySelector('select[data-key="Count"]').value === index""",
            arg=previous_index,
            timeout=TIMEOUT_MS,
        )
        self.wait_on_disk("Count", previous_on_disk)

    # 6b
    def test_restore_brings_back_a_generation_from_the_history(self):
        self.defaults("write", FIXTURE_DOMAIN, "Name", "-string", "before restore")
        page = self.open()
        # The newest generation is the one that holds "before restore".
        generation = max(page.locator("#history li[data-generation]").evaluate_all(
            "(items) => items.map((item) => Number(item.dataset.generation))"))
        self.defaults("write", FIXTURE_DOMAIN, "Name", "-string", "after restore point")
        page.wait_for_function(
            """() => document.querySelector('input[data-key="Name"]').value === 'after restore point'""",
            timeout=TIMEOUT_MS,
        )
        page.wait_for_selector(f'button[data-restore="{generation}"]')
        page.locator(f'button[data-restore="{generation}"]').click()
        self.wait_on_disk("Name", "before restore")
        page.wait_for_function(
            """() => document.querySelector('input[data-key="Name"]').value === 'before restore'""",
            timeout=TIMEOUT_MS,
        )

    # 7
    def test_requests_without_the_token_from_a_foreign_host_or_without_csrf_are_refused(self):
        server = self.server
        path = f"/domains/{FIXTURE_DOMAIN}"
        self.assertEqual(server.request("GET", "/")[0], 401)
        self.assertEqual(server.request("GET", path)[0], 401)
        self.assertEqual(server.request("GET", f"/?token={'0' * len(server.token)}")[0], 401)

        status, headers, _ = server.request("GET", f"{path}?token={server.token}")
        self.assertEqual(status, 303)
        self.assertEqual(headers.get("Location"), path, "the redirect keeps the token in the address")
        cookie = server.session_cookie()
        self.assertEqual(server.request("GET", path, headers={"Cookie": cookie})[0], 200)
        self.assertEqual(server.request("GET", path, headers={"Cookie": cookie}, host=f"localhost:{server.port}")[0], 200)
        self.assertEqual(server.request("GET", f"{path}/events", headers={"Cookie": "x=y"})[0], 401)

        # A page of another site that rebinds its name to 127.0.0.1: right token, wrong Host.
        foreign = f"evil.example:{server.port}"
        self.assertEqual(server.request("GET", f"/?token={server.token}", host=foreign)[0], 421)
        self.assertEqual(server.request("GET", path, headers={"Cookie": cookie}, host=foreign)[0], 421)
        self.assertEqual(server.request("GET", path, headers={"Cookie": cookie}, host="127.0.0.1")[0], 421)
        self.assertEqual(server.request("GET", path, headers={"Cookie": cookie}, host=f"localhost:{server.port + 1}")[0], 421)

        _, _, page = server.request("GET", path, headers={"Cookie": cookie})
        csrf = page.decode().split('name="csrf-token" content="', 1)[1].split('"', 1)[0]
        before = self.world.domain_bytes(FIXTURE_DOMAIN)
        body = json.dumps({"changes": [{"key": "Name", "value": {"string": "forged"}}]})
        json_type = {"Content-Type": "application/json", "Cookie": cookie}
        self.assertEqual(server.request("POST", f"{path}/changes", body, json_type)[0], 403)
        self.assertEqual(server.request("POST", f"{path}/changes", body, {**json_type, "X-CSRF-Token": "0" * len(csrf)})[0], 403)
        self.assertEqual(server.request("POST", f"{path}/undo", "{}", json_type)[0], 403)
        self.assertEqual(self.world.domain_bytes(FIXTURE_DOMAIN), before, "a refused request changed the domain")
        # The same request with the token is accepted: the refusals above were about CSRF.
        accepted = server.request("POST", f"{path}/changes", body, {**json_type, "X-CSRF-Token": csrf})
        self.assertEqual(accepted[0], 200, accepted[2])
        self.wait_on_disk("Name", "forged")

    # 7b
    def test_malformed_requests_are_refused_without_writing_or_breaking_the_server(self):
        page = self.open()
        base = f"/domains/{FIXTURE_DOMAIN}"
        before = self.world.domain_bytes(FIXTURE_DOMAIN)
        post_raw = """async ({ path, text }) => {
          const csrf = document.querySelector('meta[name="csrf-token"]').content;
          const response = await fetch(path, { method: "POST", body: text,
            headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf } });
          return { status: response.status, text: await response.text() };
        }"""
        cases = [
            ("/changes", "{not json"),
            ("/changes", json.dumps({"changes": [{"key": "Enabled", "value": {"string": "yes please"}}]})),
            ("/changes", json.dumps({"changes": [{"key": "Count", "value": {"choice": -1}}]})),
            ("/changes", json.dumps({"changes": "Enabled"})),
            ("/restore", json.dumps({"generation": 987654})),
            ("/restore", json.dumps({"generation": "latest"})),
        ]
        for path, text in cases:
            with self.subTest(path=path, body=text):
                reply = page.evaluate(post_raw, {"path": base + path, "text": text})
                self.assertTrue(400 <= reply["status"] < 500, f"answered {reply['status']}: {reply['text']}")
        self.assertEqual(self.world.domain_bytes(FIXTURE_DOMAIN), before, "a malformed request changed the domain")
        # Without the cookie a change is refused before anything else is looked at.
        status = self.server.request("POST", base + "/changes", "{}", {"Content-Type": "application/json"})[0]
        self.assertEqual(status, 401)
        # The server still serves, and the page still works.
        switch = page.locator('input[type=checkbox][role=switch][data-key="Enabled"]')
        was_on = switch.is_checked()
        switch.click()
        self.wait_on_disk("Enabled", "0" if was_on else "1")

    # 8
    def test_the_page_works_with_the_keyboard_alone(self):
        page = self.open()
        for key, kind in (("Enabled", "switch"), ("Count", "select")):
            control_id = page.get_attribute(f'[data-row="{key}"] [data-key="{key}"]', "id")
            self.assertTrue(control_id, f"the {kind} of {key} has no id for a label to name")
            self.assertEqual(page.locator(f'label[for="{control_id}"]').count(), 1, f"no label is bound to the {kind} of {key}")
        self.assertEqual(page.get_by_label("Enabled", exact=True).get_attribute("data-key"), "Enabled")
        self.assertEqual(page.get_by_label("Count", exact=True).get_attribute("data-key"), "Count")

        def tab_to(selector):
            """Presses Tab until `selector` has focus: the order a keyboard user meets."""
            for _ in range(60):
                page.keyboard.press("Tab")
                if page.evaluate("(selector) => document.activeElement?.matches(selector) ?? false", selector):
                    return
            self.fail(f"Tab never reached {selector}")

        switch = 'input[type=checkbox][role=switch][data-key="Enabled"]'
        tab_to(switch)
        was_on = page.is_checked(switch)
        page.keyboard.press("Space")
        self.wait_on_disk("Enabled", "0" if was_on else "1")

        select = 'select[data-key="Count"]'
        tab_to(select)
        index = int(page.locator(select).input_value())
        # Down, or up from the last entry: either way another choice.
        page.keyboard.press("ArrowDown" if index < 2 else "ArrowUp")
        chosen = index + 1 if index < 2 else index - 1
        self.wait_on_disk("Count", str(chosen + 1))
        self.assertEqual(page.locator(select).input_value(), str(chosen))

    # 9
    def test_titles_come_from_the_strings_table(self):
        page = self.open()
        # textContent, not innerText: headings are upper-cased by the style sheet.
        text = page.locator("main").text_content()
        for word in ("Main", "Count", "One", "Advanced"):
            self.assertIn(word, text)
        for raw in ("GROUP_MAIN", "COUNT_TITLE", "ADVANCED"):
            self.assertNotIn(raw, text, f"the untranslated {raw} is shown")
        options = page.locator('select[data-key="Count"] option').all_text_contents()
        self.assertEqual([option.strip() for option in options], ["One", "Two", "Three"])
        self.assertEqual(
            page.locator('select[data-key="Count"] option').evaluate_all("(items) => items.map((item) => item.value)"),
            ["0", "1", "2"],
        )
        self.assertEqual(page.locator('label[for]', has_text="Count").count(), 1)
        self.assertIn("Advanced", page.locator('a[data-pane="Advanced"]').text_content())
        self.assertEqual(page.locator('output[data-key="Version"]').text_content().strip(), "1.0")

    # 10
    def test_several_typed_fields_are_saved_as_one_transaction(self):
        # A domain with a history to compare with (a domain without a file has none).
        self.defaults("write", FIXTURE_DOMAIN, "Theme", "-string", "light")
        page = self.open()

        def newest_generation():
            return max(entry["generation"] for entry in json.loads(self.defaults("history", "--json", FIXTURE_DOMAIN)))

        def page_generations():
            return page.locator("#history li[data-generation]").evaluate_all(
                "(items) => items.map((item) => Number(item.dataset.generation))")

        before = newest_generation()
        shown_before = page_generations()
        name, password = f"name-{uuid.uuid4().hex[:8]}", f"secret-{uuid.uuid4().hex[:8]}"
        count = applied_count(page)
        page.locator('input[type=text][data-key="Name"]').fill(name)
        page.locator('input[type=password][data-key="Password"]').fill(password)
        page.locator("button[data-save]").click()
        wait_applied_after(page, count, "Name")
        self.wait_on_disk("Name", name)
        self.assertEqual(self.read("Password"), password)
        self.assertEqual(newest_generation(), before + 1, "the two fields were not saved as one commit")
        page.wait_for_function(
            "(newest) => [...document.querySelectorAll('#history li[data-generation]')].some((item) => Number(item.dataset.generation) === newest)",
            arg=before + 1,
            timeout=TIMEOUT_MS,
        )
        shown_after = page_generations()
        self.assertEqual(max(shown_after), max(shown_before) + 1)
        self.assertEqual(len(set(shown_after) - set(shown_before)), 1, "the page's history gained more than one entry")
        self.assertEqual(page.locator('[data-message-for="Name"]').text_content().strip(), "")
        self.assertEqual(page.locator('[data-origin-for="Name"]').get_attribute("data-layer"), "app")
        self.assertEqual(page.locator('button[data-reset-for="Name"]').count(), 1, "a key in the domain's file has no reset")


    # 10b
    def test_a_save_with_one_refused_field_writes_none_of_them(self):
        page = self.open()
        before = self.world.domain_bytes(FIXTURE_DOMAIN)
        name_before = self.read("Name")
        count = applied_count(page)
        page.locator('input[type=text][data-key="Name"]').fill(f"never-{uuid.uuid4().hex[:8]}")
        page.locator('input[type=number][data-key="Volume"][data-part=number]').fill("-1")
        page.locator("button[data-save]").click()
        wait_applied_after(page, count, "Volume")
        self.assertNotEqual(page.locator('[data-message-for="Volume"]').text_content().strip(), "")
        self.assertEqual(self.world.domain_bytes(FIXTURE_DOMAIN), before, "part of a refused transaction was written")
        self.assertEqual(self.read("Name"), name_before)


class UndeclaredDomainTests(BrowserTestCase):
    """A domain without a declaration beside a declared one, and the list of domains."""

    @classmethod
    def prepare(cls, world):
        prepare_fixture(world)
        # The declared domain must exist on disk to be listed as a domain of the user's.
        world.defaults("write", FIXTURE_DOMAIN, "Name", "-string", "listed")
        world.defaults("write", FREE_DOMAIN, "Plain", "-string", "x")
        world.defaults("write", FREE_DOMAIN, "Dict", "-dict", "a", "1", "b", "2")

    # 11
    def test_a_domain_without_declaration_shows_a_typed_tree(self):
        page = self.open(FREE_DOMAIN)
        page.locator('[data-row="Plain"]').wait_for()
        page.locator('[data-row="Dict"]').wait_for()
        # In a tree the key names the whole value (data-key may sit on the tree around the
        # leaves), so the string's field is the row's one text input.
        self.assertGreater(page.locator('[data-row="Plain"] [data-key="Plain"]').count(), 0)
        plain = page.locator('[data-row="Plain"] input[type=text]')
        self.assertEqual(plain.count(), 1)
        self.assertEqual(plain.input_value(), "x")
        dictionary = page.locator('[data-row="Dict"]')
        # The dictionary's entries are shown as entries with their values, not as text.
        text = dictionary.text_content()
        for word in ("a", "b"):
            self.assertIn(word, text)
        values = dictionary.locator("input").evaluate_all("(items) => items.map((item) => item.value)")
        self.assertIn("1", values)
        self.assertIn("2", values)
        self.assertEqual(page.locator('[data-origin-for="Plain"]').get_attribute("data-layer"), "app")

        # A change of a typed leaf goes through the page like any other.
        plain.fill("y")
        plain.press("Enter")
        self.wait_on_disk("Plain", "y", FREE_DOMAIN)

    def test_nested_values_of_the_typed_tree_are_edited_added_and_removed_in_one_save(self):
        self.world.defaults("write", FREE_DOMAIN, "Tree", "{ a = (1, 2); b = { c = x; }; }")
        page = self.open(FREE_DOMAIN)
        row = page.locator('[data-row="Tree"]')
        row.wait_for()
        top = row.locator(".tree > .node[data-type=dictionary]")
        array = top.locator(':scope > .entries > li.entry[data-name="a"] > .node[data-type=array]')
        inner = top.locator(':scope > .entries > li.entry[data-name="b"] > .node[data-type=dictionary]')
        # A leaf of a nested dictionary, by the name screen readers hear for it.
        page.get_by_label("Tree → b → c", exact=True).fill("y")
        # The array's first element goes; a boolean is added to it, switched on.
        array.locator(":scope > .entries > li.entry").first.locator(":scope > button[data-remove]").click()
        array.locator(":scope > .add select[data-add-type]").select_option("boolean")
        array.locator(":scope > .add button[data-add]").click()
        array.locator(':scope > .entries > li.entry >> nth=-1').locator("input[type=checkbox]").check()
        # The nested dictionary gains an integer entry named n.
        inner.locator(":scope > .add input[data-add-name]").fill("n")
        inner.locator(":scope > .add select[data-add-type]").select_option("integer")
        inner.locator(":scope > .add button[data-add]").click()
        inner.locator(':scope > .entries > li.entry[data-name="n"] input[type=number]').fill("7")
        history_before = len(json.loads(self.world.defaults("history", "--json", FREE_DOMAIN)))
        page.locator("button[data-save]").click()

        def on_disk():
            with open(self.world.domain_file(FREE_DOMAIN), "rb") as handle:
                return plistlib.load(handle).get("Tree")

        wait_until(lambda: on_disk() == {"a": ["2", True], "b": {"c": "y", "n": 7}}, message=f"the edited tree on disk (it is {on_disk()!r})")
        self.assertEqual(len(json.loads(self.world.defaults("history", "--json", FREE_DOMAIN))), history_before + 1, "one save, one commit")
        # The page shows the tree as stored, typed: the integer is a number field holding 7.
        row.locator('li.entry[data-name="n"] .node[data-type=integer] input').wait_for()
        self.assertEqual(row.locator('li.entry[data-name="n"] input').input_value(), "7")

    def test_the_list_page_lists_the_domains_and_the_search_filters_them(self):
        page = self.browser.new_page(self.server)
        self.addCleanup(close, page)
        free = page.locator(f'li[data-domain="{FREE_DOMAIN}"]')
        declared = page.locator(f'li[data-domain="{FIXTURE_DOMAIN}"]')
        self.assertEqual(free.locator(f'a[href="/domains/{FREE_DOMAIN}"]').count(), 1)
        self.assertEqual(declared.locator(f'a[href="/domains/{FIXTURE_DOMAIN}"]').count(), 1)
        search = page.locator("input#domain-search[type=search]")
        search.fill("free")
        free.wait_for(state="visible")
        declared.wait_for(state="hidden")
        search.fill("example.settings")
        declared.wait_for(state="visible")
        free.wait_for(state="hidden")
        search.fill("")
        free.wait_for(state="visible")
        declared.wait_for(state="visible")
        with page.expect_navigation():
            free.locator("a").click()
        page.locator('[data-row="Plain"]').wait_for()


# -- the runner ----------------------------------------------------------------------------


class CountingResult(unittest.TextTestResult):
    """Counts passes too (unittest counts only what went wrong), for the final summary."""

    def __init__(self, *arguments, **keywords):
        super().__init__(*arguments, **keywords)
        self.passed = 0

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed += 1


def run_tests(patterns=None):
    loader = unittest.TestLoader()
    if patterns:
        loader.testNamePatterns = [f"*{pattern}*" for pattern in patterns]
    suite = loader.loadTestsFromModule(sys.modules[__name__])
    runner = unittest.TextTestRunner(verbosity=2, resultclass=CountingResult, stream=sys.stdout)
    result = runner.run(suite)
    # Errors (an exception other than a failed assertion) and unexpected successes are
    # failures too; a class whose setUpClass failed counts as one error.
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    return (0 if failed == 0 and result.passed > 0 else 1), f"{result.passed} passed, {failed} failed"


# -- latency measurement -------------------------------------------------------------------


def percentile(values, fraction):
    """The nearest-rank percentile: a value that was measured, never an interpolation."""
    ordered = sorted(values)
    # Rounded before the ceiling so that 0.99 × 200 (198.00000000000003) is rank 198.
    rank = max(1, math.ceil(round(len(ordered) * fraction, 9)))
    return ordered[rank - 1]


def measure(count, results_file):
    """Times a change made by another process (preferences-demo writer, from flush()
    returning) to the page having drawn it (its `preferences:applied`), both on the wall
    clock, and writes a report. Only reports: nothing here passes or fails on a number."""
    world = World()
    server = browser = writer = None
    latencies = []
    try:
        prepare_fixture(world)
        server = Server(world)
        browser = Browser()
        page = open_domain(browser, server)
        writer = LineProcess([tool("preferences-demo"), "writer", FIXTURE_DOMAIN], world.env, stdin=True)
        ready = writer.next_line(timeout=30)
        if ready != "ready":
            raise AssertionError(f"preferences-demo writer printed {ready!r}, not ready")
        previous = int(float(page.locator('[data-key="Volume"][data-part=number]').input_value()))
        for index in range(count):
            value = index % 11
            if value == previous:  # every change must be a real change, or nothing is drawn
                value = (value + 1) % 11
            page.evaluate("() => { window.__applied.length = 0; }")
            writer.send(f"Volume {value}")
            flushed_ns = int(writer.next_line(timeout=30))
            handle = page.wait_for_function(
                """(value) => window.__applied.find((entry) => entry.key === "Volume" && Number(entry.volume) === value)""",
                arg=value,
                timeout=30000,
            )
            applied_ms = handle.json_value()["at"]
            latencies.append(applied_ms - flushed_ns / 1e6)
            previous = value
        close(page)
    finally:
        for part, end in ((writer, "stop"), (browser, "close"), (server, "stop")):
            if part is not None:
                getattr(part, end)()
        world.cleanup()

    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    processors = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    report = "\n".join([
        "# Settings page: change in another process → drawn in the browser",
        "",
        "From `flush()` returning in `preferences-demo writer` to the page's `preferences:applied`",
        "event (wall clock in both, CLOCK_REALTIME and `performance.timeOrigin + performance.now()`).",
        "",
        f"- changes: {len(latencies)}",
        f"- p50: {percentile(latencies, 0.50):.2f} ms",
        f"- p99: {percentile(latencies, 0.99):.2f} ms",
        f"- max: {max(latencies):.2f} ms",
        f"- min: {min(latencies):.2f} ms",
        f"- mean: {statistics.fmean(latencies):.2f} ms",
        f"- uptime: {load}",
        f"- nproc: {processors}",
        "",
    ])
    with open(results_file, "w") as handle:
        handle.write(report)
    print(report)
    return 0


# -- screenshot ----------------------------------------------------------------------------


def screenshot(path):
    """A full-page picture of the fixture domain's page with every kind of row: switches,
    slider, picker, radio group, text fields, the locked key, the child-pane link, and a
    history with a few entries."""
    world = World()
    server = browser = None
    try:
        prepare_fixture(world)
        world.defaults("write", FIXTURE_DOMAIN, "Name", "-string", "Ada")
        world.defaults("write", FIXTURE_DOMAIN, "Volume", "-int", "7")
        world.defaults("write", FIXTURE_DOMAIN, "Count", "-int", "2", "Theme", "-string", "dark")
        server = Server(world)
        browser = Browser()
        page = open_domain(browser, server)
        page.wait_for_timeout(300)  # let the live-status line settle so the picture is stable
        page.screenshot(path=path, full_page=True)
        close(page)
    finally:
        if browser is not None:
            browser.close()
        if server is not None:
            server.stop()
        world.cleanup()
    print(f"screenshot: {path}")
    return 0


def main(arguments):
    usage = "usage: settings_page_test.py [-k PATTERN]... [--measure COUNT RESULTS_FILE] [--screenshot PNG_PATH]"
    measure_arguments = screenshot_path = None
    patterns = []
    rest = list(arguments)
    while rest:
        option = rest.pop(0)
        if option == "-k" and rest:
            patterns.append(rest.pop(0))
        elif option == "--measure" and len(rest) >= 2:
            measure_arguments = (int(rest.pop(0)), rest.pop(0))
        elif option == "--screenshot" and rest:
            screenshot_path = rest.pop(0)
        else:
            print(usage, file=sys.stderr)
            return 2
    if measure_arguments and measure_arguments[0] < 1:
        print("COUNT must be at least 1", file=sys.stderr)
        return 2
    summary = None
    if measure_arguments:
        status = measure(*measure_arguments)
    else:
        status, summary = run_tests(patterns)
    if screenshot_path:
        try:
            screenshot(screenshot_path)
        except Exception as error:  # the tests' results still count, and are printed below
            print(f"screenshot failed: {error!r}", file=sys.stderr)
            status = 1
    if summary:
        print(summary)  # the last line, whatever else ran: scripts read it
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
