// The bridge library: marshaling, base64, UTF-8, the Response object and the caller's name for
// the capability globals the core defines. Guest source, evaluated as sandbox:bridge before any
// run in a sandbox's own context (so it is in the snapshot), and in an isolated module's context
// when it first uses a capability or passes bytes; the host calls the function it evaluates to
// with the intrinsics the core captured (I). The __NAME__ globals are placeholders guest-prelude.ts fills.
//
// Marshaling (the spec's Fact 7): guest→host typed arrays travel as real ArrayBuffers beside a JSON
// argument list; host→guest bytes arrive as { "__sandboxBytes": b64 } and are revived here; the host
// always resolves with a tagged result, and a failure becomes a normal guest Error carrying `code`.
(function (I) {
  'use strict';
  // May be compiled after packs have run: only the captured intrinsics in I are trusted (see the core),
  // called through I.apply; no for-of, spread or destructuring (they take Array.prototype's
  // iterator); no assignment that could reach a setter on a prototype (descriptors and lists are
  // null-prototype objects, new properties are defined); tags and fields read only when own.
  const own = (object, key) => (I.hasOwn(object, key) ? object[key] : undefined);
  const define = (object, key, value) => I.dp(object, key, { __proto__: null, value, writable: true, enumerable: true, configurable: true });
  const fixed = (value) => ({ __proto__: null, value });

  // The prototype of every promise the library hands out or waits on. "await" reads a promise's
  // "constructor", "then" reads it too: on Promise.prototype a pack's getter would be handed the
  // promise and could read its value. Here both are own, frozen and ours, and "then" keeps the
  // promises it derives (getSecret(n).then(f)) on SAFE as well.
  const guard = (promise) => {
    I.setProto(promise, SAFE);
    return promise;
  };
  const SAFE = I.freeze(
    I.create(I.Promise.prototype, {
      __proto__: null,
      constructor: fixed(I.Promise),
      catch: fixed(I.P[1]),
      finally: fixed(I.P[2]),
      then: fixed(function then(onFulfilled, onRejected) {
        return guard(I.apply(I.P[0], this, [onFulfilled, onRejected]));
      }),
    }),
  );

  // Base64 and UTF-8, by hand: the guest has neither, and the built-ins it has may be patched.
  const chars = (text) => I.apply(I.bind, I.charCodeAt, [text]);
  const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const DECODE = new I.U8(128);
  const alphabetCode = chars(ALPHABET);
  for (let i = 0; i < 64; i++) DECODE[alphabetCode(i)] = i;
  function b64decode(text) {
    const code = chars(text);
    let end = text.length;
    while (end > 0 && code(end - 1) === 61) end--;
    const n = (end * 3) >> 2;
    const out = new I.U8(n);
    let j = 0;
    for (let i = 0; i < end; i += 4) {
      const x = (DECODE[code(i)] << 18) | (DECODE[code(i + 1)] << 12) | (DECODE[code(i + 2)] << 6) | DECODE[code(i + 3)];
      if (j < n) out[j++] = (x >> 16) & 255;
      if (j < n) out[j++] = (x >> 8) & 255;
      if (j < n) out[j++] = x & 255;
    }
    return out;
  }
  function b64encode(bytes) {
    const n = I.apply(I.TA[2], bytes, []);
    let out = '';
    for (let i = 0; i < n; i += 3) {
      const x = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
      out += ALPHABET[(x >> 18) & 63] + ALPHABET[(x >> 12) & 63] + (i + 1 < n ? ALPHABET[(x >> 6) & 63] : '=') + (i + 2 < n ? ALPHABET[x & 63] : '=');
    }
    return out;
  }
  function utf8encode(text) {
    const binary = I.unescape(I.encodeURIComponent(I.Str(text)));
    const code = chars(binary);
    const out = new I.U8(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = code(i);
    return out;
  }
  function utf8decode(bytes) {
    const n = I.apply(I.TA[2], bytes, []);
    let out = '';
    let i = 0;
    while (i < n) {
      const x = bytes[i++];
      let codePoint = 0xfffd;
      let need = 0;
      if (x < 0x80) {
        codePoint = x;
      } else if (x >= 0xc2 && x < 0xe0) {
        codePoint = x & 0x1f;
        need = 1;
      } else if (x >= 0xe0 && x < 0xf0) {
        codePoint = x & 0x0f;
        need = 2;
      } else if (x >= 0xf0 && x < 0xf5) {
        codePoint = x & 0x07;
        need = 3;
      }
      for (let k = 0; k < need; k++) {
        const c = bytes[i];
        if (c === undefined || (c & 0xc0) !== 0x80) {
          codePoint = 0xfffd;
          break;
        }
        codePoint = (codePoint << 6) | (c & 0x3f);
        i++;
      }
      if (codePoint > 0xffff) {
        codePoint -= 0x10000;
        out += I.fromCharCode(0xd800 + (codePoint >> 10), 0xdc00 + (codePoint & 0x3ff));
      } else {
        out += I.fromCharCode(codePoint);
      }
    }
    return out;
  }

  // A Uint8Array over the bytes of a typed array, DataView or ArrayBuffer; undefined for anything else.
  function bytesOf(value) {
    if (I.isView(value)) {
      let getters = I.TA;
      try {
        I.apply(getters[0], value, []);
      } catch (_) {
        getters = I.DV;
      }
      const parts = [I.apply(getters[0], value, []), I.apply(getters[1], value, []), I.apply(getters[2], value, [])];
      return new I.U8(parts[0], parts[1], parts[2]);
    }
    try {
      I.apply(I.ABG[0], value, []);
    } catch (_) {
      return undefined;
    }
    return new I.U8(value);
  }

  // Host→guest bytes arrive as { "__sandboxBytes": b64 }; numbers JSON cannot say as { "__sandboxNumber": … }.
  const tag = (value) => ({ __sandboxBytes: b64encode(bytesOf(value)) });
  const revive = (value) => (I.keys(value).length === 1 ? b64decode(value.__sandboxBytes) : value);
  const TAGGED_NUMBERS = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 };
  const fromJson = (_key, value) =>
    value === null || typeof value !== 'object'
      ? value
      : I.hasOwn(value, '__sandboxBytes')
        ? typeof value.__sandboxBytes === 'string'
          ? revive(value)
          : value
        : I.hasOwn(value, '__sandboxNumber') &&
            typeof value.__sandboxNumber === 'string' &&
            I.keys(value).length === 1 &&
            I.hasOwn(TAGGED_NUMBERS, value.__sandboxNumber)
          ? TAGGED_NUMBERS[value.__sandboxNumber]
          : value;
  const numberTag = (value) =>
    value !== value ? 'NaN' : value === Infinity ? 'Infinity' : value === -Infinity ? '-Infinity' : value === 0 && 1 / value < 0 ? '-0' : undefined;

  // The node's arguments as JSON text, written here rather than by JSON.stringify, which asks every
  // object for a toJSON a pack may have put on a prototype. Plain data only: own enumerable keys,
  // arrays (holes as null), strings, numbers (tagged when JSON cannot say them), booleans, null;
  // bytes travel as copies beside the text, indexed by { "__sandboxBuffer": i }.
  function encode(value, buffers, depth) {
    if (value === null) return 'null';
    const type = typeof value;
    if (type === 'string') return I.JSONstringify(value);
    if (type === 'number') {
      const tagged = numberTag(value);
      return tagged === undefined ? I.Str(value) : '{"__sandboxNumber":"' + tagged + '"}';
    }
    if (type === 'boolean') return value ? 'true' : 'false';
    if (type === 'bigint') throw new I.TypeErr('A BigInt cannot be passed to the host.');
    if (type !== 'object') return undefined;
    if (depth >= __JSON_DEPTH__) throw new I.TypeErr('A value passed to the host is nested more than __JSON_DEPTH__ levels deep (or refers to itself).');
    let out = '';
    if (I.isArray(value)) {
      for (let i = 0, n = value.length; i < n; i++) {
        const item = I.hasOwn(value, i) ? encode(value[i], buffers, depth + 1) : undefined;
        out += (i ? ',' : '') + (item === undefined ? 'null' : item);
      }
      return '[' + out + ']';
    }
    const bytes = bytesOf(value);
    if (bytes !== undefined) {
      const copy = new I.U8(I.apply(I.TA[2], bytes, []));
      I.apply(I.taSet, copy, [bytes]);
      buffers[buffers.length] = I.apply(I.TA[0], copy, []);
      return '{"__sandboxBuffer":' + buffers.length++ + '}';
    }
    const keys = I.keys(value);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const item = encode(value[key], buffers, depth + 1);
      if (item !== undefined) out += (out === '' ? '' : ',') + I.JSONstringify(key) + ':' + item;
    }
    return '{' + out + '}';
  }

  // A value we resolve a promise with is asked for "then": an own one keeps the question off its prototypes.
  function inert(value) {
    if (value !== null && typeof value === 'object' && !I.hasOwn(value, 'then')) {
      I.dp(value, 'then', { __proto__: null, value: undefined, writable: true, configurable: true });
    }
    return value;
  }
  function later() {
    let fulfil;
    let reject;
    const promise = guard(
      new I.Promise((resolve, fail) => {
        fulfil = resolve;
        reject = fail;
      }),
    );
    return { p: promise, ok: (value) => fulfil(inert(value)), no: (error) => reject(error) };
  }
  const settled = (f) => {
    const deferred = later();
    try {
      deferred.ok(f());
    } catch (e) {
      deferred.no(e);
    }
    return deferred.p;
  };
  const begin = (f) => {
    try {
      return f();
    } catch (e) {
      const deferred = later();
      deferred.no(e);
      return deferred.p;
    }
  };
  // A failed tagged result as a normal guest Error carrying its code.
  function failure(result) {
    const error = new I.Err(I.Str(own(result, 'message')));
    define(error, 'code', own(result, 'code'));
    return error;
  }
  function settle(result, ok, no) {
    if (own(result, 'ok') === true) ok(inert(own(result, 'value')));
    else no(failure(result));
  }

  // The file of the innermost frame that is not ours (not the prelude, not this library, not a
  // built-in), or "" when none is within 64 frames or when that frame did not call the capability
  // itself but a built-in that did (Reflect.apply, Function.prototype.call, Array.prototype.map…: a
  // pack can plant such a chain for the node's code to run): the kernel calls this from inside a
  // host call to name a denied capability's caller. File names belong to the bytecode (module ids are the
  // kernel's), unlike stack text, whose function names the guest writes. The hook is set only while
  // our own Error is built, and nothing in that window runs guest code: the limit is a number, the
  // engine reads only own data "name" properties, and the sites are never handed out.
  function caller() {
    let file = '';
    const record = (_error, sites) => {
      for (let i = 0; i < sites.length; i++) {
        const site = sites[i];
        const name = I.apply(I.getProto(site).getFileName, site, []);
        if (typeof name !== 'string' || name === __PRELUDE_NAME__ || name === __LIBRARY_NAME__) continue;
        if (i > 0 && typeof I.apply(I.getProto(sites[i - 1]).getFileName, sites[i - 1], []) === 'string') file = name;
        break;
      }
      return '';
    };
    const before = I.apply(I.getLimit, I.Err, []);
    I.apply(I.setLimit, I.Err, [64]);
    I.apply(I.setPrepare, I.Err, [record]);
    try {
      new I.Err();
    } finally {
      I.apply(I.setPrepare, I.Err, [undefined]);
      I.apply(I.setLimit, I.Err, [before]);
    }
    return file;
  }

  // One host call: a guarded promise of the answer's value (through "map"), or of an Error carrying its code.
  function call(kind, name, args, map) {
    const deferred = later();
    const buffers = { __proto__: null, length: 0 };
    try {
      const json = encode(args, buffers, 0);
      const answer = guard(I.host(kind, name, json, buffers.length === 0 ? undefined : buffers));
      I.apply(I.P[0], answer, [
        (text) => {
          try {
            settle(I.JSONparse(text, fromJson), map === undefined ? deferred.ok : (value) => deferred.ok(map(value)), deferred.no);
          } catch (e) {
            deferred.no(e);
          }
        },
        deferred.no,
      ]);
    } catch (e) {
      deferred.no(e);
    }
    return deferred.p;
  }

  function response(result) {
    const body = own(result, 'body');
    const status = own(result, 'status');
    const list = own(result, 'headers');
    const headers = list !== null && typeof list === 'object' ? list : {};
    const get = (name) => {
      const value = own(headers, I.apply(I.lower, I.Str(name), []));
      return value === undefined ? null : value;
    };
    const entries = () => {
      const keys = I.keys(headers);
      const out = [];
      for (let i = 0; i < keys.length; i++) define(out, i, [keys[i], headers[keys[i]]]);
      return out;
    };
    return I.freeze(
      inert({
        ok: status >= 200 && status < 300,
        status,
        statusText: own(result, 'statusText'),
        url: own(result, 'url'),
        headers: I.freeze({ get, has: (name) => get(name) !== null, entries }),
        bytes: () => settled(() => body),
        arrayBuffer: () => settled(() => I.apply(I.TA[0], body, [])),
        text: () => settled(() => utf8decode(body)),
        json: () => settled(() => I.JSONparse(utf8decode(body))),
      }),
    );
  }

  // init's fields are read only when own (a literal's): a missing one would be looked up on Object.prototype.
  const fetch = (url, init) =>
    begin(() => {
      const options = init === undefined || init === null ? {} : init;
      const method = own(options, 'method');
      const headers = own(options, 'headers');
      const body = own(options, 'body');
      const request = {
        method: method === undefined ? 'GET' : I.Str(method),
        headers: headers === undefined ? {} : headers,
        body: body === undefined || body === null ? undefined : typeof body === 'string' ? utf8encode(body) : body,
      };
      return call('capability', 'fetch', [I.Str(url), request], response);
    });
  const workspace = (op, path, data) =>
    begin(() => {
      const p = path === undefined ? '.' : I.Str(path);
      if (op === 'readText') return call('capability', 'workspace.read', [p], utf8decode);
      if (op === 'readBytes') return call('capability', 'workspace.read', [p]);
      if (op === 'writeText') return call('capability', 'workspace.write', [p, utf8encode(data)]);
      if (op === 'writeBytes') return call('capability', 'workspace.write', [p, data]);
      return call('capability', 'workspace.list', [p]);
    });
  const getSecret = (name) => begin(() => call('capability', 'getSecret', [I.Str(name)]));
  return I.freeze({ tag, revive, call, settle, fetch, getSecret, workspace, caller });
});
