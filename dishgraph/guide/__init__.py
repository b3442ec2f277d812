"""The Neo4j Browser guide: slides (``slides.json``) that run dishgraph's named queries, built and served.

``dishgraph guide build --out DIR`` writes ``DIR/guide.html``; ``dishgraph guide serve`` serves it on the
loopback interface for ``:play http://localhost:8001/guide.html`` in Neo4j Browser.
"""

from dishgraph.guide.build import Guide, GuideSlide, build_guide, example_params, param_command, write_guide
from dishgraph.guide.serve import guide_url, make_server, serve_in_thread

__all__ = [
    "Guide",
    "GuideSlide",
    "build_guide",
    "example_params",
    "param_command",
    "write_guide",
    "guide_url",
    "make_server",
    "serve_in_thread",
]
