"""End-to-end: the launched app driven in a real headless Chromium (Debian's, through Playwright).

Saves a screenshot of each tab under assets/screenshots/ (shown in the README).
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

SCREENSHOTS = Path(__file__).resolve().parents[2] / "assets" / "screenshots"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def browser():
    from playwright import sync_api as playwright_api

    executable = shutil.which("chromium")
    if executable is None:
        pytest.skip("Debian chromium is not installed (apt-get install chromium)")
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, live_app):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(live_app[1])
    page.get_by_role("tab", name="Episode").wait_for()
    yield page
    context.close()


def open_tab(page, name: str) -> None:
    page.get_by_role("tab", name=name).click()


def new_episode(page, seed: int) -> str:
    page.get_by_label("Seed (blank = random)").fill(str(seed))
    page.get_by_role("button", name="New episode").click()
    page.locator("#episode-status").get_by_text("New episode").wait_for()
    return page.locator("#episode-task").inner_text()


def type_answer(page, text: str, turn: int) -> None:
    box = page.locator("#episode-answer textarea")
    box.fill(text)
    page.get_by_role("button", name="Submit answer").click()
    page.locator("#episode-status").get_by_text(re.compile(f"Turn {turn} judged|Not solved|Solved")).wait_for()
    expect(box).to_have_value("")  # the box is cleared after each judged answer


def history_rows(page) -> int:
    grid = page.locator('[role="grid"][aria-label="Episode history"]')
    return int(grid.get_attribute("aria-rowcount")) - 1  # minus the header row


def screenshot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(500)  # let plots and tables finish their transitions
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def test_play_an_episode_by_typing_and_clicking(page):
    task = new_episode(page, 31)
    assert "turn 1 of 5" in task
    for turn in range(1, 6):
        type_answer(page, "Answer: 99999", turn)
    page.locator("#episode-status").get_by_text("Not solved after 5 turns").wait_for()
    assert "✗ wrong" in page.locator("#episode-verdict").inner_text()
    assert "Reward" in page.locator("#episode-reward").inner_text()
    assert history_rows(page) == 5
    screenshot(page, "episode")


def test_tag_a_failure_in_the_bank(page, live_app):
    services, _ = live_app
    new_episode(page, 32)
    for turn in range(1, 6):
        type_answer(page, "Answer: 424242", turn)
    open_tab(page, "Failure bank")
    page.get_by_role("button", name="Search").click()
    page.locator("#bank-page-info").get_by_text(re.compile(r"\d+ failure")).wait_for()
    grid = page.locator('[role="grid"][aria-label="Failures (click a row)"]')
    grid.get_by_role("gridcell").filter(has_text="424242").first.click()  # the row with our answer opens its detail
    page.locator("#bank-detail").get_by_text("Failure #").wait_for()
    failure_id = int(re.search(r"Failure #(\d+)", page.locator("#bank-detail").inner_text())[1])
    page.locator("#bank-tags textarea, #bank-tags input").first.fill("browser-tag")
    page.get_by_role("button", name="Add tags").click()
    page.locator("#bank-status").get_by_text("Added browser-tag").wait_for()
    page.locator("#bank-detail").get_by_text("browser-tag").wait_for()
    assert "browser-tag" in services.bank.get(failure_id)["tags"]
    screenshot(page, "failure_bank")


def test_curriculum_tab_pins_and_validates_settings(page, live_app):
    open_tab(page, "Curriculum")
    page.get_by_role("button", name="Pin level").click()
    page.locator("#curriculum-status").get_by_text("pinned at easy").wait_for()
    page.get_by_role("gridcell", name="negation_arithmetic").wait_for()
    assert live_app[0].curriculum.load(["negation_arithmetic"])["negation_arithmetic"].pinned == "easy"
    screenshot(page, "curriculum")
    page.get_by_label("Promote at (accuracy)").fill("0.1")
    page.get_by_role("button", name="Save settings").click()
    page.locator("#curriculum-status").get_by_text("Not saved").wait_for()
    assert page.get_by_label("Promote at (accuracy)").input_value() == "0.1"  # the typed value is kept


def test_two_browsers_play_different_episodes(browser, live_app):
    contexts = [browser.new_context(viewport={"width": 1400, "height": 1000}) for _ in range(2)]
    pages = [context.new_page() for context in contexts]
    for page in pages:
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(live_app[1])
    first_task, second_task = new_episode(pages[0], 41), new_episode(pages[1], 42)
    assert first_task != second_task
    type_answer(pages[0], "Answer: 7771717", 1)
    assert history_rows(pages[0]) == 1
    assert pages[1].locator("#episode-task").inner_text() == second_task
    assert "turn 1 of 5" in pages[1].locator("#episode-task").inner_text()
    assert "7771717" not in pages[1].content()
    type_answer(pages[1], "Answer: 8882828", 1)
    assert "8882828" not in pages[0].content() and history_rows(pages[0]) == 1
    for context in contexts:
        context.close()


def test_start_and_stop_a_short_training_run(page, live_app):
    """A real 2-step GRPO run on the embedded model, started and stopped from the browser.

    On a loaded 2-core machine one GRPO step can take minutes, so the run is stopped as soon as
    it is running; it stops after its current step."""
    services, _ = live_app
    open_tab(page, "Training")
    page.get_by_label("Steps").fill("2")
    page.get_by_label("Held-out tasks per family × level (0 = no eval)").fill("0")
    page.get_by_role("button", name="Start").click()
    page.locator("#training-status").get_by_text(re.compile(r"Run #\d+ started")).wait_for()
    page.get_by_role("button", name="Start").click()  # a second start is refused while one runs
    page.locator("#training-status").get_by_text("still active").wait_for()
    page.locator("#training-progress").get_by_text("running").wait_for(timeout=120_000)
    page.get_by_role("button", name="Stop").click()
    page.locator("#training-status").get_by_text("Stop requested").wait_for()
    page.locator("#training-progress").get_by_text(re.compile("stopped|completed")).wait_for(timeout=600_000)
    run = services.runs.list(limit=1)[0]
    assert run["status"] in ("stopped", "completed") and run["kind"] == "grpo"
    screenshot(page, "training")


def test_charts_render(page, live_app):
    open_tab(page, "Charts")
    page.get_by_role("button", name="Refresh charts").click()
    page.locator(".js-plotly-plot").nth(6).wait_for()
    assert page.locator(".js-plotly-plot").count() == 7
    screenshot(page, "charts")
