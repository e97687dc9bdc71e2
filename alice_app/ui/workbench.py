"""The whole workbench: one ``gr.Blocks`` with a tab per area, all talking to one Services."""
from __future__ import annotations

import gradio as gr

from alice_app.ui import bank, challenger, charts_tab, curriculum, episode, training

INTRO = (
    "# ALICE workbench\n"
    "Find, record and repair the reasoning failures of a language model. Play an episode by hand, "
    "browse the failure bank, steer the curriculum, train, and watch the charts."
)
CSS = (
    ".alice-chart { min-height: 360px; }\n"
    # The Chatbot's toolbar holds only its Clear (trash) button, which Gradio 6 always shows: clearing
    # would empty the chat mid-episode while the episode goes on, so the chat hides it (copy stays).
    "#episode-chat .icon-button-wrapper.top-panel { display: none; }"
)


def build_app(services) -> gr.Blocks:
    """Build the app for ``services``; nothing here holds per-user state (that lives in gr.State)."""
    with gr.Blocks(title="ALICE workbench") as demo:
        gr.Markdown(INTRO)
        with gr.Tabs():
            with gr.Tab("Episode", id="episode") as episode_tab:
                episode_model = episode.build(services)
            with gr.Tab("Failure bank", id="bank") as bank_tab:
                bank_refresh = bank.build(services)
            with gr.Tab("Curriculum", id="curriculum") as curriculum_tab:
                curriculum_refresh = curriculum.build(services)
            with gr.Tab("Training", id="training") as training_tab:
                training_refresh = training.build(services)
            with gr.Tab("Charts", id="charts", elem_id="charts-tab") as charts_tab_block:
                charts_refresh = charts_tab.build(services)
            with gr.Tab("Challenger", id="challenger") as challenger_tab:
                challenger_refresh = challenger.build(services)
        # Each tab reloads from the database when opened, so it shows what other sessions changed.
        opened = ((episode_tab, episode_model, "episode_model"), (bank_tab, bank_refresh["refresh"], "bank"), (bank_tab, bank_refresh["map"], "bank_map"),
                  (bank_tab, bank_refresh["models"], "bank_models"),
                  (curriculum_tab, curriculum_refresh, "curriculum"), (training_tab, training_refresh["refresh"], "training"),
                  (training_tab, training_refresh["estimate"], "training_estimate"),
                  (charts_tab_block, charts_refresh, "charts"), (challenger_tab, challenger_refresh["refresh"], "challenger"),
                  *((challenger_tab, models, f"challenger_models_{side}")
                    for side, models in zip("ab", challenger_refresh["models"])))
        for tab, refresh, name in opened:
            tab.select(**refresh, api_name=f"open_{name}_tab", api_visibility="private")
        demo.load(**curriculum_refresh, api_name="load_curriculum", api_visibility="private")
        demo.load(**episode_model, api_name="load_episode_model", api_visibility="private")
    return demo


def launch(demo: gr.Blocks, settings, **options):
    """Launch on the configured address with the workbench's theme and CSS, keeping the number of browser
    sessions whose state ``demo`` was built to keep (``Blocks.launch`` would reset it to its own default)."""
    options.setdefault("state_session_capacity", demo.state_session_capacity)
    return demo.launch(server_name=settings.server_name, server_port=settings.server_port,
                       theme=gr.themes.Soft(), css=CSS, **options)
