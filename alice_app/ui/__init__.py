"""The Gradio workbench. ``build_app(services)`` returns the ``gr.Blocks``; one module per tab."""
from alice_app.ui.workbench import build_app, launch

__all__ = ["build_app", "launch"]
