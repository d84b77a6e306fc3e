"""pyiceberg interop: drive a katbench REST server with an independent client.

Usage: python pyiceberg_interop.py URI [CREDENTIAL]

Prints one "ok <step>" line per passed step and exits 0; any failure raises
(exit 1) with the step in the traceback.
"""
import json
import sys

from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import (
    CommitFailedException,
    NamespaceNotEmptyError,
    NoSuchTableError,
)
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType
from pyiceberg.view.metadata import SQLViewRepresentation, ViewRepresentation, ViewVersion


def step(name):
    print("ok", name, flush=True)


def main():
    uri = sys.argv[1]
    # fsspec, not pyarrow: catalog operations never read data files, and
    # pyarrow is a heavy install the interop test does not need.
    props = {"uri": uri, "py-io-impl": "pyiceberg.io.fsspec.FsspecFileIO"}
    if len(sys.argv) > 2:
        props["credential"] = sys.argv[2]
        props["scope"] = "catalog"
    cat = RestCatalog("katbench", **props)
    step("connect")

    cat.create_namespace("interop", {"owner": "pyiceberg"})
    cat.create_namespace(("interop", "sub"))
    assert ("interop",) in cat.list_namespaces(), cat.list_namespaces()
    assert ("interop", "sub") in cat.list_namespaces("interop"), cat.list_namespaces("interop")
    assert cat.load_namespace_properties("interop")["owner"] == "pyiceberg"
    step("namespaces")

    schema = Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "data", StringType(), required=False),
    )
    created = cat.create_table("interop.t1", schema, properties={"made-by": "pyiceberg"})
    assert created.metadata_location, "no metadata location"
    step("create_table")

    tbl = cat.load_table("interop.t1")
    assert [f.name for f in tbl.schema().fields] == ["id", "data"], tbl.schema()
    assert tbl.properties.get("made-by") == "pyiceberg", tbl.properties
    assert cat.table_exists("interop.t1")
    assert not cat.table_exists("interop.missing")
    step("load_table")

    assert ("interop", "t1") in cat.list_tables("interop"), cat.list_tables("interop")
    step("list_tables")

    with tbl.transaction() as tx:
        tx.set_properties(color="blue")
    assert cat.load_table("interop.t1").properties.get("color") == "blue"
    step("commit")

    a = cat.load_table("interop.t1")
    b = cat.load_table("interop.t1")
    with a.update_schema() as up:
        up.add_column("x", StringType())
    try:
        with b.update_schema() as up:
            up.add_column("y", StringType())
    except CommitFailedException:
        pass
    else:
        raise AssertionError("stale schema update was not rejected")
    names = [f.name for f in cat.load_table("interop.t1").schema().fields]
    assert names == ["id", "data", "x"], names
    step("failed_commit")

    try:
        cat.drop_namespace("interop")
    except NamespaceNotEmptyError:
        pass
    else:
        raise AssertionError("dropping a non-empty namespace succeeded")
    step("namespace_not_empty")

    # register: the same metadata file under a second name.
    meta_loc = cat.load_table("interop.t1").metadata_location
    reg = cat.register_table("interop.registered", meta_loc)
    assert reg.metadata_location == meta_loc, reg.metadata_location
    assert [f.name for f in cat.load_table("interop.registered").schema().fields] == ["id", "data", "x"]
    step("register_table")

    # snapshots=refs: a history of 5 snapshots (main at the last, a tag on
    # the first) registered from a metadata file written beside t1's; a
    # client in refs mode gets the two referenced snapshots and the whole
    # snapshot log, and parses the answer.
    path = meta_loc.removeprefix("file://")
    with open(path) as f:
        meta = json.load(f)
    base = meta["last-updated-ms"]
    ids = [9_100 + k for k in range(5)]
    meta["snapshots"] = [
        dict({"snapshot-id": sid, "sequence-number": k + 1, "timestamp-ms": base + k + 1,
              "manifest-list": meta["location"] + f"/metadata/snap-{sid}.avro", "schema-id": meta["current-schema-id"],
              "summary": {"operation": "append"}}, **({"parent-snapshot-id": ids[k - 1]} if k else {}))
        for k, sid in enumerate(ids)
    ]
    meta["snapshot-log"] = [{"timestamp-ms": base + k + 1, "snapshot-id": sid} for k, sid in enumerate(ids)]
    meta["refs"] = {"main": {"snapshot-id": ids[-1], "type": "branch"}, "first": {"snapshot-id": ids[0], "type": "tag"}}
    meta["current-snapshot-id"] = ids[-1]
    meta["last-sequence-number"] = len(ids)
    meta["last-updated-ms"] = base + len(ids)
    hist_path = path.rsplit("/", 1)[0] + "/99999-history.metadata.json"
    with open(hist_path, "w") as f:
        json.dump(meta, f)
    cat.register_table("interop.history", "file://" + hist_path)
    refs_cat = RestCatalog("katbench-refs", **dict(props, **{"snapshot-loading-mode": "refs"}))
    hist = refs_cat.load_table("interop.history")
    got = sorted(s.snapshot_id for s in hist.metadata.snapshots)
    assert got == [ids[0], ids[-1]], got
    assert hist.current_snapshot().snapshot_id == ids[-1], hist.current_snapshot()
    assert len(hist.metadata.snapshot_log) == len(ids), hist.metadata.snapshot_log
    assert len(cat.load_table("interop.history").metadata.snapshots) == len(ids)
    cat.drop_table("interop.history")
    step("snapshots_refs")

    # views: create, load, list, exists, drop.
    version = ViewVersion(
        version_id=1,
        schema_id=0,
        representations=[ViewRepresentation(SQLViewRepresentation(type="sql", sql="SELECT id FROM interop.t1", dialect="spark"))],
        default_namespace=("interop",),
    )
    cat.create_view("interop.v1", schema, version, properties={"comment": "made by pyiceberg"})
    v = cat.load_view("interop.v1")
    assert v.metadata.versions[0].representations[0].root.sql == "SELECT id FROM interop.t1", v.metadata
    assert v.metadata.properties.get("comment") == "made by pyiceberg", v.metadata.properties
    assert cat.view_exists("interop.v1")
    assert ("interop", "v1") in cat.list_views("interop"), cat.list_views("interop")
    step("views")

    # paging: a client with rest-page-size 2 walks a listing of 5 tables.
    paged = RestCatalog("katbench-paged", **{**props, "rest-page-size": "2"})
    for i in range(5):
        paged.create_table(f"interop.p{i}", schema)
    names = [t[-1] for t in paged.list_tables("interop") if t[-1].startswith("p")]
    assert names == [f"p{i}" for i in range(5)], names
    for i in range(5):
        paged.drop_table(f"interop.p{i}")
    step("paging")

    cat.drop_view("interop.v1")
    assert not cat.view_exists("interop.v1")
    cat.drop_table("interop.registered")

    cat.rename_table("interop.t1", "interop.t2")
    assert cat.table_exists("interop.t2")
    assert not cat.table_exists("interop.t1")
    step("rename_table")

    cat.drop_table("interop.t2")
    try:
        cat.load_table("interop.t2")
    except NoSuchTableError:
        pass
    else:
        raise AssertionError("dropped table still loads")
    cat.drop_namespace(("interop", "sub"))
    cat.drop_namespace("interop")
    assert ("interop",) not in cat.list_namespaces()
    step("drop")
    print("ALL OK", flush=True)


if __name__ == "__main__":
    main()
