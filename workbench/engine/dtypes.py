"""The dtype names the workbench writes (``f32``, as jaxprs print them) and NumPy's for each.

A module of its own, importing nothing, so both the argument specs and the error
catalog (which the specs' errors depend on) can read it.
"""

from __future__ import annotations

# Short names, as jaxprs print them, to NumPy/JAX dtype names.
DTYPES: dict[str, str] = {
    "bool": "bool",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "u8": "uint8",
    "u16": "uint16",
    "u32": "uint32",
    "u64": "uint64",
    "f16": "float16",
    "bf16": "bfloat16",
    "f32": "float32",
    "f64": "float64",
    "c64": "complex64",
    "c128": "complex128",
}
