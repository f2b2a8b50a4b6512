// The guest prelude's core: the first code that runs in every fresh guest context, before any
// module and so before any pack's top level (guest-prelude.ts says what it promises and why).
// Guest source, not Node's: a script evaluated as sandbox:prelude, whose completion value is the
// helpers the kernel keeps. The __NAME__ globals are placeholders guest-prelude.ts fills with
// host names and limits; the `#if wasm` section is left out of the core of runs without WASM
// modules (scripts/build-guest.mjs makes both texts, and guest-sources.generated.ts holds them).
(function (globalObject) {
  'use strict';
  const Obj = Object;
  const defineProperty = Obj.defineProperty;
  const freeze = Obj.freeze;
  const getPrototypeOf = Obj.getPrototypeOf;
  const getOwnPropertyDescriptor = Obj.getOwnPropertyDescriptor;
  const Err = Error;

  // The host's functions, captured and then deleted: no module ever sees them.
  const host = globalObject[__HOST_CALL__];
  const hostLog = globalObject[__HOST_LOG__];
  const hostLibrary = globalObject[__HOST_LIBRARY__];
  const hostWasm = globalObject[__HOST_WASM__];
  const hostClock = globalObject[__HOST_CLOCK__];
  delete globalObject[__HOST_CALL__];
  delete globalObject[__HOST_LOG__];
  delete globalObject[__HOST_LIBRARY__];
  delete globalObject[__HOST_WASM__];
  delete globalObject[__HOST_CLOCK__];

  const prepareStackTrace = getOwnPropertyDescriptor(Err, 'prepareStackTrace');
  const stackTraceLimit = getOwnPropertyDescriptor(Err, 'stackTraceLimit');
  const typedArrayProto = getPrototypeOf(Uint8Array.prototype);
  const stringProto = String.prototype;
  const promiseProto = Promise.prototype;

  // What touches host answers or the node's arguments after packs have run (the library is
  // compiled then, the web parts too) uses only what is captured here: a pack may patch any
  // prototype or global, and a patched method, getter or setter on the way would be handed the
  // data. Accessors are called through their captured getters (TA: buffer, byteOffset,
  // byteLength; DV likewise; ABG: byteLength). The field names are the library's and the web
  // parts' contract.
  //
  // So a pack cannot spy by patching what the bridge would touch (a getter on Object.prototype for
  // a tag or for "then", toJSON, an Array index setter, String or TypedArray methods,
  // Promise.prototype's then or constructor): from a capability call until its value reaches the
  // node's await or then, nothing looks anything up on a shared prototype (prelude-spying.test.ts,
  // one test per way in). The price: capability arguments are plain data (toJSON is not honoured),
  // the library's promises have a frozen prototype of their own, Promise[Symbol.species] cannot be
  // redefined. Not covered: what the node itself does with a value once it has it; console output
  // and the node's result, which are serialized by JSON.stringify (toJSON is their contract); WASM
  // results, which facades return from async functions (a plain promise).
  const getters = (object, names) => names.split(' ').map((name) => getOwnPropertyDescriptor(object, name).get);
  const I = freeze({
    host,
    isArray: Array.isArray,
    Promise,
    JSONparse: JSON.parse,
    JSONstringify: JSON.stringify,
    isView: ArrayBuffer.isView,
    U8: Uint8Array,
    AB: ArrayBuffer,
    apply: Reflect.apply,
    keys: Obj.keys,
    hasOwn: Obj.hasOwn,
    freeze,
    fromCharCode: String.fromCharCode,
    Err,
    TypeErr: TypeError,
    Str: String,
    unescape,
    encodeURIComponent,
    getProto: getPrototypeOf,
    setPrepare: prepareStackTrace.set,
    getLimit: stackTraceLimit.get,
    setLimit: stackTraceLimit.set,
    dp: defineProperty,
    setProto: Obj.setPrototypeOf,
    create: Obj.create,
    bind: Obj.bind,
    charCodeAt: stringProto.charCodeAt,
    lower: stringProto.toLowerCase,
    taSet: typedArrayProto.set,
    P: [promiseProto.then, promiseProto.catch, promiseProto.finally],
    TA: getters(typedArrayProto, 'buffer byteOffset byteLength'),
    DV: getters(DataView.prototype, 'buffer byteOffset byteLength'),
    ABG: getters(ArrayBuffer.prototype, 'byteLength'),
    /** %TypedArray%.prototype[Symbol.toStringTag]: the kind from the internal slot ("Uint8Array"), undefined for anything else. */
    taTag: getOwnPropertyDescriptor(typedArrayProto, Symbol.toStringTag).get,
    abSlice: ArrayBuffer.prototype.slice,
  });

  // "then" asks the promise's species for the promise it returns; locked, so a pack's species
  // constructor is never handed the value a chain passes on (the library's promises, see SAFE there).
  defineProperty(Promise, Symbol.species, { configurable: false });

  // No code generation, no timers, no shared memory.
  delete globalObject.eval;
  delete globalObject.SharedArrayBuffer;
  delete globalObject.Atomics;
  for (const name of ['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate']) delete globalObject[name];
  const TypeErr = TypeError;
  const lock = { writable: false, enumerable: false, configurable: false };

  // The engine hands a prepareStackTrace hook live CallSites whose getFunction() returns the real
  // function of every frame, host functions included; so the hook is ours alone (the library sets
  // it for an instant to name a capability's caller), and the guest's stackTraceLimit is kept a
  // number (an object's valueOf would run guest code inside every stack capture).
  defineProperty(Err, 'prepareStackTrace', {
    get: function () {
      return undefined;
    },
    set: function () {
      throw new TypeErr('Error.prepareStackTrace cannot be set in the sandbox: stack frames are not handed to sandbox code.');
    },
    enumerable: false,
    configurable: false,
  });
  defineProperty(Err, 'stackTraceLimit', {
    get: function () {
      return I.apply(I.getLimit, Err, []);
    },
    set: function (value) {
      I.apply(I.setLimit, Err, [typeof value === 'number' ? value : 0]);
    },
    enumerable: false,
    configurable: false,
  });

  // Function source is never readable (a private pack's code would leak through a run): functions
  // compiled from source print a stand-in that does not claim "[native code]", so native-function
  // checks (lodash, core-js) still tell them apart; built-ins print as before. An accessor, so that
  // assigning a function's own toString still works in strict code.
  const functionProto = getPrototypeOf(function () {});
  const asyncFunctionProto = getPrototypeOf(async function () {});
  const generatorFunctionProto = getPrototypeOf(function* () {});
  const asyncGeneratorFunctionProto = getPrototypeOf(async function* () {});
  const nativeToString = functionProto.toString;
  const fileName = getOwnPropertyDescriptor(functionProto, 'fileName').get;
  const hidden = {
    toString() {
      if (this === bind) return bindText;
      if (typeof this !== 'function' || I.apply(fileName, this, []) === undefined) return I.apply(nativeToString, this, []);
      const own = getOwnPropertyDescriptor(this, 'name');
      const name = own !== undefined && typeof own.value === 'string' ? own.value : '';
      const prototype = getOwnPropertyDescriptor(this, 'prototype');
      const kind = getPrototypeOf(this);
      if (prototype !== undefined && prototype.writable === false) return 'class ' + name + ' { [sandbox: source hidden] }';
      return (
        (kind === asyncFunctionProto
          ? 'async function '
          : kind === generatorFunctionProto
            ? 'function* '
            : kind === asyncGeneratorFunctionProto
              ? 'async function* '
              : 'function ') +
        name +
        '() { [sandbox: source hidden] }'
      );
    },
  }.toString;
  defineProperty(functionProto, 'toString', {
    get: function () {
      return hidden;
    },
    set: function (value) {
      if (this === functionProto) throw new TypeErr('Function.prototype.toString cannot be replaced in the sandbox.');
      defineProperty(this, 'toString', { value: value, writable: true, enumerable: true, configurable: true });
    },
    enumerable: false,
    configurable: false,
  });

  // One body is answered rather than refused: Function("return this") (lodash, core-js, webpack's
  // runtime ask for the global object so), which needs no code generated. Its function behaves as the
  // sloppy one would: called plainly it returns the global object, with a this it returns that (boxed).
  // No line break after return: there, the body would return undefined.
  const regExpExec = RegExp.prototype.exec;
  const GLOBAL_IDIOM = /^\s*return[ \t]+this\s*;?\s*$/;
  for (const [label, proto] of [
    ['Function', getPrototypeOf(function () {})],
    ['AsyncFunction', getPrototypeOf(async function () {})],
    ['GeneratorFunction', getPrototypeOf(function* () {})],
    ['AsyncGeneratorFunction', getPrototypeOf(async function* () {})],
  ]) {
    const refuse = () => {
      throw new TypeErr(label + ' constructor is not available in the sandbox: code cannot be generated at run time.');
    };
    const blocked =
      label !== 'Function'
        ? function () {
            refuse();
          }
        : function (body) {
            if (arguments.length === 1 && typeof body === 'string' && I.apply(regExpExec, GLOBAL_IDIOM, [body]) !== null) {
              return {
                anonymous: function () {
                  return this === undefined || this === null ? globalObject : Obj(this);
                },
              }.anonymous;
            }
            refuse();
          };
    defineProperty(blocked, 'prototype', { value: proto, ...lock });
    defineProperty(proto, 'constructor', { value: blocked, ...lock });
    if (label === 'Function') defineProperty(globalObject, 'Function', { value: blocked, ...lock });
  }

  // The bridge library (guest/library.js): compiled by `warm` before any run in a sandbox's own
  // context (so it is in the snapshot each run is restored from), on first use in any other.
  let compiledLibrary;
  const library = () => compiledLibrary || (compiledLibrary = hostLibrary(I));
  const isBytes = (value) => I.isView(value) || value instanceof I.AB;
  const toJson = (_key, value) => (isBytes(value) ? library().tag(value) : value);
  const TAGGED_NUMBERS = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 };
  // Tags are own properties of objects JSON.parse made; a read up the prototype chain would hand a
  // pack's getter every host answer.
  const fromJson = (_key, value) =>
    value === null || typeof value !== 'object'
      ? value
      : I.hasOwn(value, '__sandboxBytes')
        ? typeof value.__sandboxBytes === 'string'
          ? library().revive(value)
          : value
        : I.hasOwn(value, '__sandboxNumber') &&
            typeof value.__sandboxNumber === 'string' &&
            I.keys(value).length === 1 &&
            I.hasOwn(TAGGED_NUMBERS, value.__sandboxNumber)
          ? TAGGED_NUMBERS[value.__sandboxNumber]
          : value;
  const constant = (name, value) => defineProperty(globalObject, name, { value: freeze(value), ...lock });

  const show = (value) => {
    if (typeof value === 'string') return value;
    if (value instanceof I.Err) return I.Str(value.name) + ': ' + I.Str(value.message);
    try {
      const json = I.JSONstringify(value, toJson);
      return json === undefined ? I.Str(value) : json;
    } catch (_) {
      return I.Str(value);
    }
  };
  const logger =
    (level) =>
    (...args) => {
      let text = '';
      for (let i = 0; i < args.length; i++) text += (i ? ' ' : '') + show(args[i]);
      hostLog(level, text);
    };
  constant('console', { log: logger('log'), info: logger('info'), warn: logger('warn'), error: logger('error'), debug: logger('debug') });

  // The run's own time origin (see HOST_CLOCK_GLOBAL): the engine's performance is the context's.
  // Replaceable, as the engine's own is (an input may be named performance).
  defineProperty(globalObject, 'performance', {
    value: freeze({
      now() {
        return hostClock(0);
      },
      get timeOrigin() {
        return hostClock(1);
      },
    }),
    writable: true,
    enumerable: true,
    configurable: true,
  });

  // The library hands back its own guarded promise and never throws: an async wrapper here would
  // resolve a promise with that promise, and that looks up "then".
  // A denial names the code that called the capability from the engine's frames (the library's
  // caller). Frames the engine never shows — a bound function, a getter or proxy the engine calls on
  // the node's behalf — would let a pack that planted getSecret.bind(…) as Array.prototype.at make
  // the node's own .at() read as the node's call. So a capability called with a `this` it does not
  // take (a getter's, a method's) or through a bound function counts as called by code the sandbox
  // cannot tell, and bind is ours to see that (for any other function it is the engine's own).
  let indirect = false;
  const capabilities = [];
  const isCapability = (f) => {
    for (let i = 0; i < capabilities.length; i++) if (capabilities[i] === f) return true;
    return false;
  };
  const entry = (name, direct, f) => {
    const fn = {
      [name](a, b) {
        const was = indirect;
        indirect = was || !direct(this);
        try {
          return f(a, b);
        } finally {
          indirect = was;
        }
      },
    }[name];
    capabilities.push(fn);
    return fn;
  };
  const nativeBind = functionProto.bind;
  const bindText = I.apply(nativeToString, nativeBind, []);
  const bind = {
    bind() {
      const inner = I.apply(nativeBind, this, arguments);
      if (!isCapability(this)) return inner;
      const bound = {
        bound() {
          const was = indirect;
          indirect = true;
          try {
            return I.apply(inner, this, arguments);
          } finally {
            indirect = was;
          }
        },
      }.bound;
      defineProperty(bound, 'name', { value: getOwnPropertyDescriptor(inner, 'name').value });
      return bound;
    },
  }.bind;
  defineProperty(bind, 'length', { value: 1 });
  defineProperty(functionProto, 'bind', { value: bind, writable: true, enumerable: false, configurable: true });

  // The capability globals: fetch and getSecret take no `this`; workspace's methods take the
  // workspace object or none.
  const plain = (self) => self === undefined;
  const capability = (name) => entry(name, plain, (a, b) => library()[name](a, b));
  const workspaceMethod = (op) =>
    entry(
      op,
      (self) => self === workspaceObject || self === undefined,
      (path, data) => library().workspace(op, path, data),
    );
  constant('fetch', capability('fetch'));
  constant('getSecret', capability('getSecret'));
  const workspaceObject = {
    readText: workspaceMethod('readText'),
    readBytes: workspaceMethod('readBytes'),
    writeText: workspaceMethod('writeText'),
    writeBytes: workspaceMethod('writeBytes'),
    list: workspaceMethod('list'),
  };
  constant('workspace', workspaceObject);

  // The web-standard globals (guest-web.ts): this captures what the parts use (WEB, the parts' W)
  // and defines each global lazily; its first touch compiles the part that defines it.
  const hostWeb = globalObject[__HOST_WEB__];
  const hostRandom = globalObject[__HOST_RANDOM__];
  delete globalObject[__HOST_WEB__];
  delete globalObject[__HOST_RANDOM__];
  const capture = (object, names) => {
    const captured = Obj.create(null);
    for (const name of names.split(' ')) {
      const descriptor = getOwnPropertyDescriptor(object, name);
      if (descriptor !== undefined) captured[name] = descriptor.get || descriptor.value;
    }
    return freeze(captured);
  };
  const WEB = freeze({
    I,
    G: globalObject,
    O: Obj,
    hostRandom,
    ST: Symbol.toStringTag,
    SI: Symbol.iterator,
    IP: getPrototypeOf(getPrototypeOf([][Symbol.iterator]())),
    RangeErr: RangeError,
    DOMEx: DOMException,
    from: Array.from,
    Arr: Array,
    cp: String.fromCodePoint,
    esc: escape,
    dURI: decodeURIComponent,
    isErr: Err.isError,
    TAG: getOwnPropertyDescriptor(typedArrayProto, Symbol.toStringTag).get,
    TL: getOwnPropertyDescriptor(typedArrayProto, 'length').get,
    S: capture(stringProto, 'normalize toWellFormed isWellFormed slice'),
    values: Array.prototype.values,
    gopd: getOwnPropertyDescriptor,
    M: capture(Map.prototype, 'get set has forEach size'),
    St: capture(Set.prototype, 'add forEach size'),
    D: capture(Date.prototype, 'getTime'),
    AB: capture(ArrayBuffer.prototype, 'resizable maxByteLength detached transfer'),
    R: capture(RegExp.prototype, 'source hasIndices global ignoreCase multiline dotAll unicode unicodeSets sticky'),
    V: [Boolean, Number, String, BigInt].map((c) => [c.prototype, c.prototype.valueOf]),
    C: capture(
      globalObject,
      'Map Set Date RegExp DataView Int8Array Uint8Array Uint8ClampedArray Int16Array Uint16Array Int32Array Uint32Array Float16Array Float32Array Float64Array BigInt64Array BigUint64Array Error EvalError RangeError ReferenceError SyntaxError TypeError URIError',
    ),
    NC: 'WeakMap WeakSet WeakRef FinalizationRegistry Promise Symbol'.split(' ').map((name) => [globalObject[name].prototype, name]),
  });
  const parts = Obj.create(null);
  const part = (name) => parts[name] || (parts[name] = hostWeb(name, WEB, part));
  const lazy = (name, partName, enumerable) => {
    const plainValue = (value) => defineProperty(globalObject, name, { __proto__: null, value: value, writable: true, enumerable, configurable: true });
    defineProperty(globalObject, name, {
      get: function () {
        const value = part(partName)[name];
        plainValue(value);
        return value;
      },
      set: function (value) {
        plainValue(value);
      },
      enumerable,
      configurable: true,
    });
  };
  // Each global as name:part:e (e: enumerable), from WEB_GLOBALS.
  for (const web of __WEB_LAZY__.split(' ')) {
    const [name, partName, enumerable] = web.split(':');
    lazy(name, partName, enumerable === 'e');
  }

  // #if wasm
  // The WASM bridge (the facades' only way out): a promise of the export's value, or a rejection
  // with an Error carrying the host's code. Lists of numbers, strings and Uint8Arrays take the
  // fast path below. The host answers `deliver(id, answer, how)`: how 2, an ArrayBuffer that
  // is a bytes result (handed over as a Uint8Array of its own); how 1, a tagged result as JSON
  // (a failure); otherwise the value itself (a number, undefined, a string result).
  const waiting = Obj.create(null);
  const deliver = (id, answer, how) => {
    const settle = waiting[id];
    if (settle === undefined) return;
    delete waiting[id];
    if (how === 2) {
      settle[0](new I.U8(answer));
      return;
    }
    if (how !== 1) {
      settle[0](answer);
      return;
    }
    try {
      library().settle(I.JSONparse(answer, fromJson), settle[0], settle[1]);
    } catch (e) {
      settle[1](e);
    }
  };
  const slowWasm = (moduleId, exportName, args) => library().call('wasm', 'call', [moduleId, exportName, args]);
  const wasmCall = (moduleId, exportName, args) => {
    if (typeof moduleId === 'string' && typeof exportName === 'string' && I.isArray(args) && args.length <= __WASM_MAX_PARAMS__) {
      // A null-prototype list: filling an array would pass each number to an index setter a pack put on Array.prototype.
      const n = args.length;
      const list = { __proto__: null, 0: moduleId, 1: exportName, length: n + 2 };
      let passable = true;
      for (let i = 0; i < n; i++) {
        const x = args[i];
        const kind = typeof x === 'object' && x !== null ? I.apply(I.taTag, x, []) : undefined;
        if (typeof x === 'number' || typeof x === 'string') list[i + 2] = x;
        else if (kind !== undefined && kind !== 'Uint8Array') {
          // Another typed array: never its bytes (the host names its kind in the refusal).
          list[i + 2] = { __proto__: null, notBytes: kind };
        } else if (kind === 'Uint8Array') {
          // The viewed bytes as an ArrayBuffer the host copies: the buffer itself when the view is
          // all of it (no copy here), else a slice. Read through captured getters only.
          const buffer = I.apply(I.TA[0], x, []);
          const offset = I.apply(I.TA[1], x, []);
          const length = I.apply(I.TA[2], x, []);
          // No bytes at all travel as undefined (an empty ArrayBuffer has no data the host could read).
          list[i + 2] =
            length === 0
              ? undefined
              : offset === 0 && length === I.apply(I.ABG[0], buffer, [])
                ? buffer
                : I.apply(I.abSlice, buffer, [offset, offset + length]);
        } else {
          passable = false;
          break;
        }
      }
      if (passable) {
        return new I.Promise((resolve, reject) => {
          waiting[I.apply(hostWasm, undefined, list)] = [resolve, reject];
        });
      }
    }
    return slowWasm(moduleId, exportName, args);
  };
  // One-shot: the kernel evaluates the bridge module right after this core, before any pack, and
  // its one read removes the binding; no module ever sees it.
  defineProperty(globalObject, __WASM_GLOBAL__, {
    get: function () {
      delete globalObject[__WASM_GLOBAL__];
      return wasmCall;
    },
    enumerable: false,
    configurable: true,
  });
  // #else
  // const deliver = undefined;
  // #endif

  // Isolation (shared/sandbox/kernel/isolation.ts): the copy of values between a node's context
  // and an isolated pack's, both ways. Only text and byte buffers cross (the host carries them from
  // one context to the other); each side encodes with what this core captured before any guest
  // code ran and decodes into values of its own realm, so neither ever holds an object of the
  // other's. What crosses: undefined, null, booleans, numbers (-0, NaN and the infinities kept),
  // strings, arrays, plain objects (own enumerable string keys), Uint8Array, Date, Map and Set.
  // Anything else is refused with the path of the value.
  const isoProtos = {
    object: Obj.prototype,
    array: Array.prototype,
    bytes: Uint8Array.prototype,
    date: Date.prototype,
    map: Map.prototype,
    set: Set.prototype,
  };
  const isoOwnKeys = Reflect.ownKeys;
  const isoGetTime = Date.prototype.getTime;
  const isoAbSlice = ArrayBuffer.prototype.slice;
  const isoIsPrototypeOf = Obj.prototype.isPrototypeOf;
  // A subclass instance (smol-toml's TomlDate, a Buffer-like Uint8Array) is copied as its base kind.
  const isoKindOf = (proto, v) =>
    proto === isoProtos.bytes ||
    proto === isoProtos.date ||
    proto === isoProtos.map ||
    proto === isoProtos.set ||
    proto === isoProtos.array ||
    proto === isoProtos.object ||
    proto === null
      ? proto
      : I.apply(isoIsPrototypeOf, isoProtos.bytes, [v])
        ? isoProtos.bytes
        : I.apply(isoIsPrototypeOf, isoProtos.date, [v])
          ? isoProtos.date
          : I.apply(isoIsPrototypeOf, isoProtos.map, [v])
            ? isoProtos.map
            : I.apply(isoIsPrototypeOf, isoProtos.set, [v])
              ? isoProtos.set
              : proto;
  const isoMapForEach = Map.prototype.forEach;
  const isoSetForEach = Set.prototype.forEach;
  const isoMapSet = Map.prototype.set;
  const isoSetAdd = Set.prototype.add;
  const isoMap = Map;
  const isoSet = Set;
  const isoDate = Date;
  const isoIsError = Err.isError;
  const isoErrors = { Error, TypeError, RangeError, SyntaxError, ReferenceError, URIError, EvalError };
  const isoNumbers = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 };
  const ISO_BYTES = __COPY_BYTES__;
  const ISO_DEPTH = __COPY_DEPTH__;
  /** A refusal: the path of the value and why, for the sentence the host writes (isolation.ts). */
  const isoRefuse = (path, why) => {
    throw { __proto__: null, isoRefused: true, path: path, why: why };
  };
  const isoKeyPath = (path, key) =>
    I.apply(regExpExec, /^[A-Za-z_$][A-Za-z0-9_$]*$/, [key]) !== null ? path + '.' + key : path + '[' + I.JSONstringify(key) + ']';
  /** A primitive's text when it needs no tag and no counting (the common argument and answer), else undefined. */
  const isoQuick = (v) => {
    const t = typeof v;
    if (t === 'string') return v.length <= 4096 ? I.JSONstringify(v) : undefined;
    if (t === 'number') return v === v && v !== Infinity && v !== -Infinity && (v !== 0 || 1 / v > 0) ? I.JSONstringify(v) : undefined;
    if (t === 'boolean') return v ? 'true' : 'false';
    return v === null ? 'null' : undefined;
  };
  /** A short list of such primitives (a call's arguments), or undefined. */
  const isoQuickList = (v) => {
    if (getPrototypeOf(v) !== isoProtos.array || !I.isArray(v) || v.length > 16) return undefined;
    let out = '["a"';
    for (let i = 0; i < v.length; i++) {
      const d = getOwnPropertyDescriptor(v, i);
      const item = d === undefined || d.get !== undefined || d.set !== undefined ? undefined : isoQuick(d.value);
      if (item === undefined) return undefined;
      out += ',' + item;
    }
    return out + ']';
  };
  /**
   * [text, buffers, functions]: the value as tagged JSON (written here piece by piece: JSON.stringify
   * would consult a toJSON of this realm's), its Uint8Arrays apart (the host copies their bytes).
   * `exporting` (an export copied at import): a function inside plain objects and arrays is kept as
   * a call target (its key path, in `functions`, as JSON) and anything else that cannot be copied
   * as a marker that says why, so one unusable export never stops the others; elsewhere both are
   * refused.
   */
  const isoEncode = (value, root, exporting) => {
    const buffers = [];
    const open = [];
    const functions = [];
    // Where the walk is, as steps from the root (kind 0 a property, 1 an index, 2 a Map or Set
    // entry): the path's text is made only when a refusal names it. `entries` counts kind-2 steps,
    // below which a function can be no call target (it is reached by no key path).
    const kinds = [];
    const keys = [];
    let entries = 0;
    const down = (kind, key) => {
      kinds[kinds.length] = kind;
      keys[keys.length] = key;
      if (kind === 2) entries++;
    };
    const up = () => {
      if (kinds[kinds.length - 1] === 2) entries--;
      kinds.length = kinds.length - 1;
      keys.length = keys.length - 1;
    };
    const here = () => {
      let path = root;
      for (let i = 0; i < keys.length; i++)
        path = kinds[i] === 0 ? isoKeyPath(path, keys[i]) : kinds[i] === 1 ? path + '[' + keys[i] + ']' : path + '.<' + keys[i] + '>';
      return path;
    };
    let bytes = 0;
    const count = (n) => {
      bytes += n;
      if (bytes > ISO_BYTES) isoRefuse(here(), 'over the copy limit of ' + ISO_BYTES + ' bytes');
    };
    const unusable = (why) => {
      if (!exporting) isoRefuse(here(), why);
      return '["x",' + I.JSONstringify(here()) + ',' + I.JSONstringify(why) + ']';
    };
    // A plain object's (or a function's) own enumerable string-keyed properties, as key, value pairs.
    const properties = (v, depth) => {
      let out = '';
      const own = isoOwnKeys(v);
      for (let i = 0; i < own.length; i++) {
        const key = own[i];
        if (typeof key === 'symbol') {
          if (exporting) continue;
          isoRefuse(here(), 'a symbol-keyed property');
        }
        const d = getOwnPropertyDescriptor(v, key);
        if (d === undefined || !d.enumerable) continue;
        down(0, key);
        count(key.length + 2);
        out +=
          ',' +
          I.JSONstringify(key) +
          ',' +
          (d.get !== undefined ? unusable('a getter') : d.set !== undefined ? unusable('a setter') : walk(d.value, depth + 1));
        up();
      }
      return out;
    };
    const walk = (v, depth) => {
      const type = typeof v;
      if (v === null) return 'null';
      if (type === 'boolean') return v ? 'true' : 'false';
      if (type === 'string') {
        count(v.length + 2);
        return I.JSONstringify(v);
      }
      if (type === 'undefined') return '["u"]';
      if (type === 'number') {
        if (v !== v) return '["n","NaN"]';
        if (v === Infinity) return '["n","Infinity"]';
        if (v === -Infinity) return '["n","-Infinity"]';
        if (v === 0 && 1 / v < 0) return '["n","-0"]';
        return I.JSONstringify(v);
      }
      if (type === 'symbol') return unusable('a symbol');
      if (type === 'bigint') return unusable('a BigInt');
      if (depth >= ISO_DEPTH) isoRefuse(here(), 'nested deeper than ' + ISO_DEPTH + ' levels');
      for (let i = 0; i < open.length; i++) if (open[i] === v) return unusable('a cycle (the value contains itself)');
      if (type === 'function' && !(exporting && entries === 0)) return unusable('a function');
      count(8);
      const proto = type === 'function' ? undefined : isoKindOf(getPrototypeOf(v), v);
      let out;
      open[open.length] = v;
      if (type === 'function') {
        out = '["f",' + functions.length;
        // Its key path from the export (indices as strings, as property keys are).
        let trail = '[';
        for (let i = 0; i < keys.length; i++) trail += (i ? ',' : '') + I.JSONstringify(I.Str(keys[i]));
        functions[functions.length] = trail + ']';
        out += properties(v, depth);
      } else if (proto === isoProtos.array && I.isArray(v)) {
        out = '["a"';
        const length = v.length;
        for (let i = 0; i < length; i++) {
          const d = getOwnPropertyDescriptor(v, i);
          down(1, i);
          out +=
            ',' +
            (d !== undefined && d.get !== undefined
              ? unusable('a getter')
              : d !== undefined && d.set !== undefined
                ? unusable('a setter')
                : walk(d === undefined ? undefined : d.value, depth + 1));
          up();
        }
      } else if (proto === isoProtos.bytes) {
        const offset = I.apply(I.TA[1], v, []);
        const length = I.apply(I.TA[2], v, []);
        count(length);
        out = '["b",' + buffers.length;
        // The viewed bytes alone, as an ArrayBuffer the host can read.
        buffers[buffers.length] = I.apply(isoAbSlice, I.apply(I.TA[0], v, []), [offset, offset + length]);
      } else if (proto === isoProtos.date) {
        const time = I.apply(isoGetTime, v, []);
        out = time !== time ? '["d",null' : '["d",' + time;
      } else if (proto === isoProtos.map) {
        out = '["m"';
        let i = 0;
        I.apply(isoMapForEach, v, [
          (item, key) => {
            down(2, 'key ' + i);
            out += ',' + walk(key, depth + 1);
            up();
            down(2, 'value ' + i);
            out += ',' + walk(item, depth + 1);
            up();
            i++;
          },
        ]);
      } else if (proto === isoProtos.set) {
        out = '["s"';
        let i = 0;
        I.apply(isoSetForEach, v, [
          (item) => {
            down(2, 'item ' + i);
            out += ',' + walk(item, depth + 1);
            up();
            i++;
          },
        ]);
      } else if (proto === isoProtos.object || proto === null) {
        out = '["o"' + properties(v, depth);
      } else {
        open.length = open.length - 1;
        return unusable(
          'an object that is not plain data (only plain objects, arrays, Uint8Array, Date, Map and Set are copied, subclasses of the last four as their base kind)',
        );
      }
      open.length = open.length - 1;
      return out + ']';
    };
    const text = walk(value, 0);
    let list = '[';
    for (let i = 0; i < functions.length; i++) list += (i ? ',' : '') + functions[i];
    return [text, buffers, list + ']'];
  };
  /**
   * A value of this realm from `isoEncode`'s text; `buffers` are ArrayBuffers the host made here.
   * The text came from the other context: anything but the tags above is refused, never looked up.
   * `make(i)` and `unusable(path, why)` (an export's copy only) stand in for its i-th function and
   * for what could not be copied; without them such tags are malformed.
   */
  const isoDecode = (text, buffersGiven, make, unusable) => {
    const parsed = I.JSONparse(text);
    if (parsed === null || typeof parsed !== 'object') return parsed;
    // A list of primitives (a call's arguments): no tag inside to read.
    if (I.isArray(parsed) && parsed[0] === 'a') {
      let flat = true;
      for (let i = 1; i < parsed.length; i++) {
        const item = parsed[i];
        if (item !== null && typeof item === 'object') {
          flat = false;
          break;
        }
      }
      if (flat) {
        const out = [];
        for (let i = 1; i < parsed.length; i++) defineProperty(out, i - 1, { value: parsed[i], writable: true, enumerable: true, configurable: true });
        return out;
      }
    }
    const buffers = buffersGiven === undefined ? [] : buffersGiven;
    const malformed = () => {
      throw new TypeErr('the isolation copy is malformed');
    };
    const own = (out, t, from) => {
      for (let i = from; i + 1 < t.length; i += 2) {
        if (typeof t[i] !== 'string') malformed();
        defineProperty(out, t[i], { value: build(t[i + 1]), writable: true, enumerable: true, configurable: true });
      }
      return out;
    };
    const build = (t) => {
      if (t === null || typeof t !== 'object') return t;
      if (!I.isArray(t)) malformed();
      const tag = t[0];
      const n = t.length;
      if (tag === 'u') return undefined;
      if (tag === 'n') return typeof t[1] === 'string' && I.hasOwn(isoNumbers, t[1]) ? isoNumbers[t[1]] : malformed();
      if (tag === 'a') {
        const out = [];
        for (let i = 1; i < n; i++) defineProperty(out, i - 1, { value: build(t[i]), writable: true, enumerable: true, configurable: true });
        return out;
      }
      if (tag === 'o') return own({}, t, 1);
      if (tag === 'b') return typeof t[1] === 'number' && t[1] >= 0 && t[1] < buffers.length ? new I.U8(buffers[t[1]]) : malformed();
      if (tag === 'd') return new isoDate(typeof t[1] === 'number' ? t[1] : NaN);
      if (tag === 'm') {
        const out = new isoMap();
        for (let i = 1; i + 1 < n; i += 2) I.apply(isoMapSet, out, [build(t[i]), build(t[i + 1])]);
        return out;
      }
      if (tag === 's') {
        const out = new isoSet();
        for (let i = 1; i < n; i++) I.apply(isoSetAdd, out, [build(t[i])]);
        return out;
      }
      if (tag === 'f' && make !== undefined && typeof t[1] === 'number') return own(make(t[1]), t, 2);
      if (tag === 'x' && unusable !== undefined && typeof t[1] === 'string' && typeof t[2] === 'string') return unusable(t[1], t[2]);
      return malformed();
    };
    return build(parsed);
  };
  /** A thrown value as [kind, text, buffers]: an error by name, message and where it was thrown; anything else copied (or refused). */
  const isoThrown = (e, what) => {
    if (isoIsError(e)) {
      let name = 'Error';
      let message = '';
      let stack = '';
      // Its own data properties that are primitives come along (a parser's line and column).
      let extra = '{';
      try {
        name = I.Str(e.name);
        message = I.Str(e.message);
        stack = I.Str(e.stack);
        const keys = I.keys(e);
        for (let i = 0, n = 0; i < keys.length && n < 32; i++) {
          const d = getOwnPropertyDescriptor(e, keys[i]);
          const t = d === undefined ? 'undefined' : typeof d.value;
          if (
            d === undefined ||
            d.get !== undefined ||
            !(t === 'string' || t === 'number' || t === 'boolean') ||
            keys[i] === 'name' ||
            keys[i] === 'message' ||
            keys[i] === 'stack'
          )
            continue;
          extra +=
            (n++ ? ',' : '') +
            I.JSONstringify(keys[i]) +
            ':' +
            (t === 'string'
              ? I.JSONstringify(d.value)
              : t === 'number' && d.value === d.value && d.value !== Infinity && d.value !== -Infinity
                ? I.Str(d.value)
                : t === 'boolean'
                  ? I.Str(d.value)
                  : 'null');
        }
      } catch (_) {
        // A getter that throws: what was read so far is kept.
      }
      return ['error', '[' + I.JSONstringify(name) + ',' + I.JSONstringify(message) + ',' + I.JSONstringify(stack) + ',' + extra + '}]', []];
    }
    try {
      const copied = isoEncode(e, what);
      return ['throw', copied[0], copied[1]];
    } catch (refusal) {
      return isoRefusal(refusal);
    }
  };
  const isoRefusal = (refusal) => {
    if (refusal !== null && typeof refusal === 'object' && refusal.isoRefused === true) return ['refused', I.JSONstringify([refusal.path, refusal.why]), []];
    throw refusal;
  };
  /** In an isolated context: call export `name` of namespace `ns` with copied arguments; [kind, text, buffers] back. */
  /** A call's answer that is a primitive, handed on as it is (`isoRun` with `raw`): strings, numbers and booleans have no realm. */
  let isoRaw;
  const ISO_RAW = freeze({ __proto__: null });
  /** The answer of the last direct call that is not such a primitive, for the host to take (`isoTake`). */
  let isoBoxed;
  const ISO_BOX = freeze({ __proto__: null });
  const isoPrimitive = (v) => {
    const t = typeof v;
    return t === 'string' || t === 'number' || t === 'boolean' || t === 'undefined';
  };
  /** Calls the target at `path` from namespace `ns` with `args` of this realm; [kind, text, buffers], a bare text, or ISO_RAW. */
  const isoRun = (ns, path, args, settle, id, raw) => {
    let result;
    try {
      // The target by its key path from the namespace; a method is called on its object.
      let self;
      let target = ns;
      for (let i = 0; i < path.length; i++) {
        self = i === 0 ? undefined : target;
        target = target[path[i]];
      }
      result = I.apply(target, self, args);
    } catch (e) {
      return isoThrown(e, 'the error thrown');
    }
    if (result instanceof I.Promise || (result !== null && (typeof result === 'object' || typeof result === 'function') && typeof result.then === 'function')) {
      const answer = (kind, copied) => settle(id, kind, copied[1], copied[2]);
      I.apply(I.P[0], new I.Promise((resolve) => resolve(result)), [
        (value) => {
          let copied;
          try {
            const encoded = isoEncode(value, 'result');
            copied = ['value', encoded[0], encoded[1]];
          } catch (refusal) {
            copied = isoRefusal(refusal);
          }
          answer(copied[0], copied);
        },
        (e) => {
          const copied = isoThrown(e, 'the rejection');
          answer(copied[0], copied);
        },
      ]);
      return ['pending', '', []];
    }
    if (raw && isoPrimitive(result)) {
      isoRaw = result;
      return ISO_RAW;
    }
    const quick = isoQuick(result);
    if (quick !== undefined) return quick;
    try {
      const encoded = isoEncode(result, 'result');
      // The common answer, a copy with no byte buffers, is its bare text.
      return encoded[1].length === 0 ? encoded[0] : ['value', encoded[0], encoded[1]];
    } catch (refusal) {
      return isoRefusal(refusal);
    }
  };
  /** In an isolated context: call the target at `path` with copied arguments; [kind, text, buffers] or a bare text back. */
  const isoInvoke = (ns, path, text, buffers, settle, id) => isoRun(ns, path, isoDecode(text, buffers === undefined ? [] : buffers), settle, id, false);
  /**
   * The same with arguments that are all primitives, passed as they are (the host checked their
   * types; no object of the node's realm ever comes this way). A primitive answer is returned as
   * it is; anything else is ISO_BOX, its answer kept for `isoTake`.
   */
  const isoInvokeDirect = (ns, path, settle, id, ...args) => {
    // The copy limit holds here too (the strings are shared, not copied, but the limit is the contract).
    let size = 0;
    let over = -1;
    for (let i = 0; i < args.length && over < 0; i++) {
      if (typeof args[i] === 'string') size += args[i].length + 2;
      if (size > ISO_BYTES) over = i;
    }
    const answer =
      over >= 0
        ? ['refused', I.JSONstringify(['args[' + over + ']', 'over the copy limit of ' + ISO_BYTES + ' bytes']), []]
        : isoRun(ns, path, args, settle, id, true);
    if (answer === ISO_RAW) {
      const value = isoRaw;
      isoRaw = undefined;
      return value;
    }
    isoBoxed = answer;
    return ISO_BOX;
  };
  const isoTake = () => {
    const answer = isoBoxed;
    isoBoxed = undefined;
    return answer;
  };
  /** In the node's context: the error an isolated export threw, as an error of this realm (its standard class kept). */
  const isoRaise = (name, message, extraText) => {
    const Ctor = I.hasOwn(isoErrors, name) ? isoErrors[name] : Err;
    const error = new Ctor(message);
    if (!I.hasOwn(isoErrors, name)) defineProperty(error, 'name', { value: name, writable: true, enumerable: false, configurable: true });
    if (typeof extraText === 'string') {
      const extra = I.JSONparse(extraText);
      const keys = extra !== null && typeof extra === 'object' && !I.isArray(extra) ? I.keys(extra) : [];
      for (let i = 0; i < keys.length; i++) {
        const v = extra[keys[i]];
        if (v === null || typeof v !== 'object') defineProperty(error, keys[i], { value: v, writable: true, enumerable: true, configurable: true });
      }
    }
    return error;
  };

  return freeze({
    serialize: (value) => I.JSONstringify(value === undefined ? null : value, toJson),
    parse: (text) => I.JSONparse(text, fromJson),
    deliver,
    caller: () => (indirect ? '' : library().caller()),
    // Compile ahead of any run, so both are in the sandbox's snapshot: the bridge library, and the
    // web parts named (space-separated; '' for none).
    warm: (names) => {
      library();
      if (names !== '') for (const name of names.split(' ')) part(name);
    },
    // A copy with no byte buffers and no functions is answered as its bare text (the host reads one string).
    isoEncode: (value, root, exporting) => {
      const quick = exporting === true ? undefined : value !== null && typeof value === 'object' ? isoQuickList(value) : isoQuick(value);
      if (quick !== undefined) return quick;
      try {
        const encoded = isoEncode(value, root, exporting === true);
        if (encoded[1].length === 0 && encoded[2] === '[]') return encoded[0];
        return ['value', encoded[0], encoded[1], encoded[2]];
      } catch (refusal) {
        return isoRefusal(refusal);
      }
    },
    isoDecode,
    isoInvoke,
    isoInvokeDirect,
    isoTake,
    isoRaise,
  });
})(globalThis);
