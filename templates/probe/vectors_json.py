"""JSON as opkit's vector runners (run_vectors.py, run_torch_vectors.py) read
and write it: opkit writes NaN and the infinities, which JSON has no number
for, as {"$float": "nan" | "inf" | "-inf"}, and reads them back so. Written
next to the runner, which imports it (Python 3.6 and later)."""
import json
import math


def special_float(obj):
    """json.load's object_hook: {"$float": ...} back to the float."""
    return float(obj["$float"]) if len(obj) == 1 and "$float" in obj else obj


def dumps(value):
    """One JSON line, NaN and the infinities written as opkit reads them back
    ({"$float": ...}), never as the NaN/Infinity that JSON parsers refuse."""
    def encode(v):
        if isinstance(v, float) and not math.isfinite(v):
            return {"$float": "nan" if math.isnan(v) else "inf" if v > 0 else "-inf"}
        if isinstance(v, dict):
            return {k: encode(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [encode(x) for x in v]
        return v
    return json.dumps(encode(value), allow_nan=False)
