"""The pure-Python oracle: the same semantics as the native backend, written to read like the specs.

Nothing here imports the extension. Tokenizer output (ids and byte offsets) is input
data, so both backends chunk exactly the same token stream.
"""
