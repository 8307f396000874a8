"""Drop-in replacements that keep upstream names, signatures, defaults and outputs.

Switch by changing one import, e.g.
``from ferrochunk.compat.ragflow import num_tokens_from_string``.
"""
