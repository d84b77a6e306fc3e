"""pyiceberg reads a table katbench data wrote: an independent client's
row count and sums, printed as one JSON object.

Usage: python pyiceberg_data.py URI NAMESPACE.TABLE [KEY=VALUE ...]

KEY=VALUE pairs are catalog properties (s3.endpoint, s3.access-key-id, ...)
for a server that does not vend storage settings; without them the
table's FileIO uses what the server's LoadTableResult config carries.
"""
import json
import sys

import pyarrow.compute as pc
from pyiceberg.catalog.rest import RestCatalog


def main():
    uri, ident = sys.argv[1], sys.argv[2]
    props = {"uri": uri}
    for kv in sys.argv[3:]:
        k, v = kv.split("=", 1)
        props[k] = v
    cat = RestCatalog("katbench", **props)
    tbl = cat.load_table(ident)
    data = tbl.scan().to_arrow()
    out = {
        "rows": data.num_rows,
        "columns": data.column_names,
        "id_sum": pc.sum(data["id"]).as_py(),
        "amount_sum": pc.sum(data["amount"]).as_py(),
        "referrer_nulls": data["referrer"].null_count,
        "distinct_event_types": len(pc.unique(data["event_type"])),
        "snapshots": len(tbl.metadata.snapshots),
        "file_io": type(tbl.io).__name__,
    }
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
