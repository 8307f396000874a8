// A small emitter, for the Code tests.
const listeners = new Map();

class Emitter {
  /** Registers a listener. */
  on(name, fn) {
    if (!listeners.has(name)) {
      listeners.set(name, []);
    }
    listeners.get(name).push(fn);
    return this;
  }

  emit(name, ...args) {
    for (const fn of listeners.get(name) || []) {
      fn(...args);
    }
  }
}

function* ids(start) {
  let n = start;
  while (true) {
    yield n++;
  }
}

function main() {
  const e = new Emitter();
  e.on("tick", (n) => console.log(n));
  e.emit("tick", ids(1).next().value);
}
