// The last piece of the URL part: the application/x-www-form-urlencoded parser and serializer, and
// the URLSearchParams and URL classes over the basic URL parser (url-parser.js), linked both ways
// (a URL's query and its searchParams' list change together).
/* global chars, I, percentDecode, push, codePoints, percentEncode, FORM, TypeErr, usvString, W, A,
  slice, needs, named, basicParse, serialize, originOf, cannotHaveCredentials, percentEncodeAll,
  USERINFO, serializePath */
'use strict';
// application/x-www-form-urlencoded: a list of [name, value] arrays of our own, never handed out.
function formParse(s) {
  const list = [];
  const c = chars(s);
  const n = s.length;
  const decode = (a, b) => {
    let t = '';
    for (let k = a; k < b; k++) {
      const x = c(k);
      t += x === 43 ? ' ' : I.fromCharCode(x);
    }
    return percentDecode(t);
  };
  for (let a = 0, i = 0; i <= n; i++) {
    if (i < n && c(i) !== 38) continue;
    if (i > a) {
      let eq = a;
      while (eq < i && c(eq) !== 61) eq++;
      push(list, [decode(a, eq), eq < i ? decode(eq + 1, i) : '']);
    }
    a = i + 1;
  }
  return list;
}
function formSerialize(list) {
  let out = '';
  const one = (s) => {
    const q = codePoints(s);
    let t = '';
    for (let k = 0; k < q.n; k++) t += q.p[k] === 32 ? '+' : percentEncode(q.p[k], FORM);
    return t;
  };
  for (let i = 0; i < list.length; i++) out += (i > 0 ? '&' : '') + one(list[i][0]) + '=' + one(list[i][1]);
  return out;
}
function sortList(list) {
  const n = list.length;
  let from = list;
  let to = [];
  for (let i = 0; i < n; i++) push(to, list[i]);
  for (let width = 1; width < n; width *= 2) {
    const t = from;
    from = to;
    to = t;
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = lo + width < n ? lo + width : n;
      const hi = lo + 2 * width < n ? lo + 2 * width : n;
      let a = lo;
      let b = mid;
      for (let k = lo; k < hi; k++) to[k] = a < mid && (b >= hi || !(from[b][0] < from[a][0])) ? from[a++] : from[b++];
    }
  }
  const out = [];
  for (let i = 0; i < n; i++) push(out, to[i]);
  return out;
}
let listOf;
let setList;
let link;
let setQuery;
const OBJECT_PROTO = I.getProto({});
// An array is read by index, never through its iterator: Array.prototype's (or a getter for it) may
// be a pack's, and would be handed the node's pairs. Only a patched prototype can tell the difference.
const toPair = (p) => {
  if (!I.isArray(p)) {
    const items = [];
    for (const x of p) push(items, x);
    p = items;
  }
  if (p.length !== 2) throw new TypeErr('URLSearchParams: each pair must have exactly two items, a name and a value.');
  return [usvString(I.hasOwn(p, 0) ? p[0] : undefined), usvString(I.hasOwn(p, 1) ? p[1] : undefined)];
};
class URLSearchParams {
  #list = [];
  #url = null;
  static {
    listOf = (q) => q.#list;
    setList = (q, list) => {
      q.#list = list;
    };
    link = (q, url) => {
      q.#url = url;
    };
  }
  constructor(init = '') {
    if (init !== null && (typeof init === 'object' || typeof init === 'function')) {
      if (#list in init) {
        const l = init.#list;
        for (let i = 0; i < l.length; i++) push(this.#list, [l[i][0], l[i][1]]);
        return;
      }
      if (I.isArray(init)) {
        for (let i = 0; i < init.length; i++) push(this.#list, toPair(I.hasOwn(init, i) ? init[i] : undefined));
        return;
      }
      // A plain object's iterator is asked of the object itself only (Object.prototype's would be a pack's).
      const proto = I.getProto(init);
      const it = proto === null || proto === OBJECT_PROTO ? (I.hasOwn(init, W.SI) ? init[W.SI] : undefined) : init[W.SI];
      if (it !== undefined && it !== null) {
        for (const p of init) push(this.#list, toPair(p));
        return;
      }
      const keys = I.keys(init);
      for (let i = 0; i < keys.length; i++) push(this.#list, [usvString(keys[i]), usvString(init[keys[i]])]);
      return;
    }
    const s = usvString(init);
    this.#list = formParse(s.length > 0 && A(I.charCodeAt, s, [0]) === 63 ? slice(s, 1) : s);
  }
  #update() {
    if (this.#url !== null) {
      const s = formSerialize(this.#list);
      setQuery(this.#url, s === '' ? null : s);
    }
  }
  get size() {
    return this.#list.length;
  }
  append(name, value) {
    needs(2, arguments.length, 'URLSearchParams.append');
    push(this.#list, [usvString(name), usvString(value)]);
    this.#update();
  }
  delete(name, value = undefined) {
    needs(1, arguments.length, 'URLSearchParams.delete');
    const n = usvString(name);
    const v = value === undefined ? undefined : usvString(value);
    const kept = [];
    const l = this.#list;
    for (let i = 0; i < l.length; i++) if (l[i][0] !== n || (v !== undefined && l[i][1] !== v)) push(kept, l[i]);
    this.#list = kept;
    this.#update();
  }
  get(name) {
    needs(1, arguments.length, 'URLSearchParams.get');
    const n = usvString(name);
    const l = this.#list;
    for (let i = 0; i < l.length; i++) if (l[i][0] === n) return l[i][1];
    return null;
  }
  getAll(name) {
    needs(1, arguments.length, 'URLSearchParams.getAll');
    const n = usvString(name);
    const l = this.#list;
    const out = [];
    for (let i = 0; i < l.length; i++) if (l[i][0] === n) push(out, l[i][1]);
    return out;
  }
  has(name, value = undefined) {
    needs(1, arguments.length, 'URLSearchParams.has');
    const n = usvString(name);
    const v = value === undefined ? undefined : usvString(value);
    const l = this.#list;
    for (let i = 0; i < l.length; i++) if (l[i][0] === n && (v === undefined || l[i][1] === v)) return true;
    return false;
  }
  set(name, value) {
    needs(2, arguments.length, 'URLSearchParams.set');
    const n = usvString(name);
    const v = usvString(value);
    const l = this.#list;
    const kept = [];
    let found = false;
    for (let i = 0; i < l.length; i++) {
      if (l[i][0] !== n) push(kept, l[i]);
      else if (!found) {
        found = true;
        push(kept, [n, v]);
      }
    }
    if (!found) push(kept, [n, v]);
    this.#list = kept;
    this.#update();
  }
  sort() {
    this.#list = sortList(this.#list);
    this.#update();
  }
  toString() {
    return formSerialize(this.#list);
  }
  forEach(callback, thisArg = undefined) {
    needs(1, arguments.length, 'URLSearchParams.forEach');
    if (typeof callback !== 'function') throw new TypeErr('URLSearchParams.forEach: the callback must be a function.');
    for (let i = 0; i < this.#list.length; i++) {
      const p = this.#list[i];
      A(callback, thisArg, [p[1], p[0], this]);
    }
  }
  entries() {
    return new Iterator(this, 0);
  }
  keys() {
    return new Iterator(this, 1);
  }
  values() {
    return new Iterator(this, 2);
  }
}
I.dp(URLSearchParams.prototype, W.SI, { __proto__: null, value: URLSearchParams.prototype.entries, writable: true, configurable: true });
class Iterator {
  #q;
  #kind;
  #i = 0;
  constructor(q, kind) {
    this.#q = q;
    this.#kind = kind;
  }
  next() {
    const l = listOf(this.#q);
    if (this.#i >= l.length) return { value: undefined, done: true };
    const p = l[this.#i++];
    return { value: this.#kind === 0 ? [p[0], p[1]] : this.#kind === 1 ? p[0] : p[1], done: false };
  }
}
I.setProto(Iterator.prototype, W.IP);
delete Iterator.prototype.constructor;
named(Iterator, 'URLSearchParams Iterator');
// null when the base or the URL is not valid; a record otherwise.
function parseWith(u, b) {
  let base = null;
  if (b !== undefined) {
    base = basicParse(b, null);
    if (base === null) return null;
  }
  return basicParse(u, base);
}
let givenRecord = null;
class URL {
  #r;
  #q;
  static {
    setQuery = (url, query) => {
      url.#r.query = query;
    };
  }
  constructor(url, base = undefined) {
    let r = givenRecord;
    givenRecord = null;
    if (r === null) {
      needs(1, arguments.length, 'URL');
      const u = usvString(url);
      const b = base === undefined ? undefined : usvString(base);
      if (b !== undefined && basicParse(b, null) === null) throw new TypeErr('Invalid base URL.');
      r = parseWith(u, b);
      if (r === null) throw new TypeErr('Invalid URL.');
    }
    this.#r = r;
    this.#q = new URLSearchParams();
    setList(this.#q, formParse(r.query === null ? '' : r.query));
    link(this.#q, this);
  }
  static parse(url, base = undefined) {
    needs(1, arguments.length, 'URL.parse');
    const r = parseWith(usvString(url), base === undefined ? undefined : usvString(base));
    if (r === null) return null;
    givenRecord = r;
    return new URL();
  }
  static canParse(url, base = undefined) {
    needs(1, arguments.length, 'URL.canParse');
    return parseWith(usvString(url), base === undefined ? undefined : usvString(base)) !== null;
  }
  get href() {
    return serialize(this.#r);
  }
  set href(v) {
    const r = basicParse(usvString(v), null);
    if (r === null) throw new TypeErr('Invalid URL.');
    this.#r = r;
    setList(this.#q, formParse(r.query === null ? '' : r.query));
  }
  get origin() {
    return originOf(this.#r);
  }
  get protocol() {
    return this.#r.scheme + ':';
  }
  set protocol(v) {
    basicParse(usvString(v) + ':', null, this.#r, 0);
  }
  get username() {
    return this.#r.user;
  }
  set username(v) {
    const s = usvString(v);
    if (!cannotHaveCredentials(this.#r)) this.#r.user = percentEncodeAll(s, USERINFO);
  }
  get password() {
    return this.#r.pass;
  }
  set password(v) {
    const s = usvString(v);
    if (!cannotHaveCredentials(this.#r)) this.#r.pass = percentEncodeAll(s, USERINFO);
  }
  get host() {
    const r = this.#r;
    return r.host === null ? '' : r.port === null ? r.host : r.host + ':' + r.port;
  }
  set host(v) {
    const s = usvString(v);
    if (typeof this.#r.path !== 'string') basicParse(s, null, this.#r, 10);
  }
  get hostname() {
    return this.#r.host === null ? '' : this.#r.host;
  }
  set hostname(v) {
    const s = usvString(v);
    if (typeof this.#r.path !== 'string') basicParse(s, null, this.#r, 11);
  }
  get port() {
    return this.#r.port === null ? '' : '' + this.#r.port;
  }
  set port(v) {
    const s = usvString(v);
    if (cannotHaveCredentials(this.#r)) return;
    if (s === '') this.#r.port = null;
    else basicParse(s, null, this.#r, 12);
  }
  get pathname() {
    return serializePath(this.#r);
  }
  set pathname(v) {
    const r = this.#r;
    const s = usvString(v);
    if (typeof r.path === 'string') return;
    r.path = [];
    basicParse(s, null, r, 16);
  }
  get search() {
    const q = this.#r.query;
    return q === null || q === '' ? '' : '?' + q;
  }
  set search(v) {
    const r = this.#r;
    const s = usvString(v);
    if (s === '') {
      r.query = null;
      setList(this.#q, []);
      return;
    }
    const input = A(I.charCodeAt, s, [0]) === 63 ? slice(s, 1) : s;
    r.query = '';
    basicParse(input, null, r, 19);
    setList(this.#q, formParse(r.query));
  }
  get searchParams() {
    return this.#q;
  }
  get hash() {
    const f = this.#r.frag;
    return f === null || f === '' ? '' : '#' + f;
  }
  set hash(v) {
    const r = this.#r;
    const s = usvString(v);
    if (s === '') {
      r.frag = null;
      return;
    }
    r.frag = '';
    basicParse(A(I.charCodeAt, s, [0]) === 35 ? slice(s, 1) : s, null, r, 20);
  }
  toJSON() {
    return serialize(this.#r);
  }
  toString() {
    return serialize(this.#r);
  }
}
return I.freeze({ __proto__: null, URL: named(URL, 'URL'), URLSearchParams: named(URLSearchParams, 'URLSearchParams') });
