"""One process serves both: the Gradio workbench at /web next to the OpenEnv API."""
from __future__ import annotations

import httpx

from alice_app.server.asgi import UI_PATH, create_app


def test_workbench_is_mounted_beside_the_api(services, serve):
    with serve(create_app(services)) as url:
        root = httpx.get(url + "/", follow_redirects=False)
        assert root.status_code in (302, 307) and root.headers["location"] == UI_PATH + "/"
        page = httpx.get(url + UI_PATH + "/", timeout=30)
        assert page.status_code == 200 and "ALICE workbench" in page.text
        config = httpx.get(url + UI_PATH + "/config", timeout=30)
        assert config.status_code == 200 and config.json()["title"] == "ALICE workbench"
        assert httpx.get(url + "/health").json()["status"] == "healthy"
        reset = httpx.post(url + "/reset", json={"family": "negation_arithmetic", "seed": 1}, timeout=30)
        assert reset.status_code == 200 and reset.json()["observation"]["prompt"]
