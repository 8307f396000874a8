"""A small parser, for the Code tests."""

import re

TOKEN = re.compile(r"\w+")


class Base:
    """Shared state."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.buffer = b""


@dataclass
class Parser(Base):
    """Reads records."""

    # The separator between records.
    SEP = b"\n"

    def feed(self, data: bytes) -> None:
        self.buffer += data
        while self.SEP in self.buffer:
            line, _, self.buffer = self.buffer.partition(self.SEP)
            if not line:
                continue
            for word in TOKEN.findall(line.decode()):
                self.emit(word)

    @property
    def pending(self) -> int:
        return len(self.buffer)

    def close(
        self,
        flush: bool = True,
    ) -> None:
        if flush:
            self.emit(self.buffer)
        self.buffer = b""

        def later():
            return None

        return later()


def main(argv):
    p = Parser("cli")
    for arg in argv:
        p.feed(arg.encode())
    p.close()
