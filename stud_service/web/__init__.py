"""The web table's built assets (static/), made from web/ by scripts/build_web.py (``make web``)."""
