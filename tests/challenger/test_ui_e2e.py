"""The Challenger tab in the launched app, driven by a real headless Chromium."""
from __future__ import annotations

import shutil

import pytest

pytestmark = pytest.mark.e2e

TEMPLATE = "Someone insists the total is {claim}. They are wrong. Add {a} and {b}."


@pytest.fixture
def live(services, load_script):
    from alice_app.challenger.family import load_catalog
    from alice_app.challenger.proposal import parse_proposal

    proposal = parse_proposal(f"TEMPLATE: {TEMPLATE}\nOP: add")
    services.templates.accept(proposal, proposer="e2e-challenger", novelty=0.8, round=1)
    services.templates.record_pass_rate(proposal.template_id, 3, 8, "solver")
    services.templates.reject("TEMPLATE: {a.__class__}", "slot_syntax", "not a plain name", proposer="e2e")
    demo, url = load_script("tests/ui/conftest.py").launch_app(services)  # the workbench tests' launcher
    yield services, proposal, url
    demo.close()
    load_catalog(services.templates)


def test_the_challenger_tab_lists_accepted_and_rejected_proposals_and_deletes(live):
    from playwright.sync_api import expect, sync_playwright

    services, proposal, url = live
    executable = shutil.which("chromium")
    if executable is None:
        pytest.skip("Debian chromium is not installed")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.set_default_timeout(30_000)
        page.goto(url)
        page.get_by_role("tab", name="Challenger").click()
        accepted = page.locator("#challenger-accepted")
        expect(accepted).to_contain_text("insists the total")
        expect(accepted).to_contain_text("0.38")
        expect(page.locator("#challenger-reasons")).to_contain_text("slot_syntax")
        page.get_by_label("Template id to delete").fill(proposal.template_id)
        page.get_by_role("button", name="Delete template").click()
        expect(page.locator("#challenger-status")).to_contain_text("deleted")
        expect(accepted).not_to_contain_text("insists the total")
        browser.close()
    assert services.templates.get(proposal.template_id) is None
