"""The Python API's argument errors: wrong types and unknown names are `UsageError`s naming the method and
the argument (never a raw TypeError from deep inside, a write refused on a read-only open, or a silent []);
`check_order` caps its text as ingest caps a recipe."""

from __future__ import annotations

import pytest

from dishgraph.api import MAX_CHECK_CHARS, DishGraph
from dishgraph.errors import DishgraphError, UsageError
from dishgraph.graph.ladybug_store import LadybugStore


@pytest.fixture(scope="module")
def g(tmp_path_factory):
    path = tmp_path_factory.mktemp("api") / "db"
    with LadybugStore(path) as s:
        s.execute("CREATE (:Dish {name: '白灼菜心', source: 't'})")
    with DishGraph.open(db=str(path), read_only=True) as graph:
        yield graph


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda g: g.actions(None), "actions\\(\\): dish must be a str, got NoneType"),
        (lambda g: g.actions(123), "dish must be a str, got int 123"),
        (lambda g: g.actions("白灼菜心", top="5"), "top must be an int"),
        (lambda g: g.actions("白灼菜心", min_freq=True), "min_freq must be a number"),
        (lambda g: g.pivots("a", "b", source="bogus"), "unknown pivot source 'bogus'; one of: annotated"),
        (lambda g: g.compare_pivots("a", "b", reference="nope"), "unknown reference source"),
        (lambda g: g.order_constraints("白灼菜心", "切", source="bogus"), "unknown constraint source"),
        (lambda g: g.check_order("白灼菜心", "切" * (MAX_CHECK_CHARS + 1)), "at most 20,000"),
        (lambda g: g.check_order("白灼菜心", 42), "a str or a list of actions"),
        (lambda g: g.frequencies("白灼菜心"), "dishes must be a list of str or None"),
        (lambda g: g.actions(), "missing a required argument"),
    ],
)
def test_wrong_arguments_are_usage_errors_with_a_message(g, call, match):
    with pytest.raises(UsageError, match=match):
        call(g)


def test_right_arguments_still_work_and_a_read_only_open_computes_nothing(g):
    assert g.actions("白灼菜心") == []  # stored nothing yet; no write tried on a read-only open
    with pytest.raises(DishgraphError):
        g.pivots("白灼菜心", "nope")  # an unknown pair: UnknownName, as documented


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"top": -1}, "top must be not negative"),
        ({"top": 2**64}, "top must be an int of at most 64 bits"),
        ({"min_freq": float("nan")}, "min_freq must be a finite number"),
        ({"min_freq": float("inf")}, "min_freq must be a finite number"),
    ],
)
def test_out_of_range_values_are_usage_errors_and_leave_the_open_usable(tmp_path, kwargs, message):
    from dishgraph.api import DishGraph
    from dishgraph.errors import UsageError
    from dishgraph.graph.ladybug_store import LadybugStore

    with LadybugStore(tmp_path / "db") as s:
        s.init_schema()
        s.bulk_load_nodes("Dish", [{"name": "白灼菜心"}])
    with DishGraph.open(db=str(tmp_path / "db"), read_only=True) as g:
        with pytest.raises(UsageError, match=message):
            g.actions("白灼菜心", **kwargs)
        assert g.actions("白灼菜心", top=5) == []  # a bad first call leaves later ones working
        with pytest.raises(UsageError, match="valid Unicode"):
            g.actions("\ud800")


def test_open_names_what_it_takes():
    from dishgraph.api import DishGraph
    from dishgraph.errors import UsageError

    with pytest.raises(UsageError, match="db must be a path"):
        DishGraph.open(db=123)
    with pytest.raises(UsageError, match=r"reached by bolt://"):
        DishGraph.open(uri="http://localhost:7474")


def test_an_unknown_dish_is_named_and_execute_checks_its_values(tmp_path):
    from dishgraph.api import DishGraph
    from dishgraph.errors import UnknownName, UsageError
    from dishgraph.graph.ladybug_store import LadybugStore

    with LadybugStore(tmp_path / "db") as s:
        s.init_schema()
        s.bulk_load_nodes("Dish", [{"name": "白灼菜心"}])
    with DishGraph.open(db=str(tmp_path / "db"), read_only=True) as g:
        for call in (g.actions, g.composed_actions):
            with pytest.raises(UnknownName, match="unknown dish '白灼菜'; did you mean 白灼菜心"):
                call("白灼菜")
            assert call("白灼菜心") == []  # known, nothing stored: empty is the truth
        for cypher, params, message in [
            (None, None, "the statement must be a str"),
            ("RETURN $x AS x", {"x": {1, 2}}, r"\$x: a set is no Cypher value"),
            ("RETURN $x AS x", {"x": (1, 2)}, r"\$x: a tuple is no Cypher value"),
            ("RETURN $x AS x", {"x": 1j}, r"\$x: a complex is no Cypher value"),
            ("RETURN $x AS x", {"x": ["a", "\ud800"]}, "lone surrogate"),
            ("RETURN $x AS x", {"x": 2**70}, "does not fit 64 bits"),
        ]:
            with pytest.raises(UsageError, match=message):
                g.store.execute(cypher, params)
        assert g.store.execute("RETURN $x AS x", {"x": [1, 2]}) == [{"x": [1, 2]}]
