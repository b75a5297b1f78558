// A zod schema built on first use. Building every schema of the service's answers when the module
// loads cost each command that talks to the service 5 to 9 ms (bench/startup.mjs); a command
// uses two or three of them. The stand-in forwards every operation to the schema, built the
// first time anything asks (a parse, or another schema made from it), so callers and types see
// the schema itself.
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const real = (): T => (built ??= build());
  return new Proxy({} as T, {
    get: (_target, key) => {
      const schema = real();
      return Reflect.get(schema, key, schema);
    },
    set: (_target, key, value) => Reflect.set(real(), key, value),
    has: (_target, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_target, key) => {
      const d = Reflect.getOwnPropertyDescriptor(real(), key);
      // The stand-in's own target is empty and extensible: it may only report configurable properties.
      return d ? { ...d, configurable: true } : undefined;
    },
    defineProperty: (_target, key, d) => Reflect.defineProperty(real(), key, d),
    deleteProperty: (_target, key) => Reflect.deleteProperty(real(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}
