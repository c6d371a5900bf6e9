"""The web table's built files (``static/``), served by the web port; built from ``web/`` by ``make web``."""
