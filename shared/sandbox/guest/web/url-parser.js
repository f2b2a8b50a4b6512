// The basic URL parser of the WHATWG URL Standard, the standard's state machine with its state
// overrides, so the setters behave as the standard says (url-api.js), and the serializers. It
// follows the current standard as the web-platform-tests' urltestdata and setters files of 2026
// test it, including its 2025 revisions (Node 20 predates them: it keeps "^" in a path, and strips
// an opaque path's trailing spaces where the standard now writes one as %20). Not offered:
// URL.createObjectURL / revokeObjectURL (there is no Blob) and non-UTF-8 query encodings. States
// are numbered in the standard's order: 0 scheme start, 1 scheme, 2 no scheme, 3 special relative
// or authority, 4 path or authority, 5 relative, 6 relative slash, 7 special authority slashes,
// 8 special authority ignore slashes, 9 authority, 10 host, 11 hostname, 12 port, 13 file,
// 14 file slash, 15 file host, 16 path start, 17 path, 18 opaque path, 19 query, 20 fragment.
/* global push, isAlpha, A, I, chars, lowerChar, codePoints, I32, EOF, isDigit, percentEncode,
  USERINFO, parseHost, fromCodePoint, slice, PATH, SPECIAL_QUERY, QUERY, FRAGMENT */
/* exported basicParse, serializePath, serialize, originOf, cannotHaveCredentials */
'use strict';
const SPECIAL_PORTS = { __proto__: null, ftp: 21, file: -1, http: 80, https: 443, ws: 80, wss: 443 };
const isSpecial = (r) => SPECIAL_PORTS[r.scheme] !== undefined;
const defaultPort = (s) => {
  const d = SPECIAL_PORTS[s];
  return d === undefined || d < 0 ? null : d;
};
const newRecord = () => ({ __proto__: null, scheme: '', user: '', pass: '', host: null, port: null, path: [], query: null, frag: null });
const copyPath = (path) => {
  if (typeof path === 'string') return path;
  const out = [];
  for (let i = 0; i < path.length; i++) push(out, path[i]);
  return out;
};
const isDriveLetter = (s) => s.length === 2 && isAlpha(A(I.charCodeAt, s, [0])) && (A(I.charCodeAt, s, [1]) === 58 || A(I.charCodeAt, s, [1]) === 124);
function shortenPath(r) {
  const path = r.path;
  if (r.scheme === 'file' && path.length === 1 && isDriveLetter(path[0]) && A(I.charCodeAt, path[0], [1]) === 58) return;
  if (path.length > 0) path.length = path.length - 1;
}
function dotSegment(s) {
  if (s.length > 6) return 0;
  let t = '';
  const c = chars(s);
  for (let i = 0; i < s.length; i++) t += lowerChar(c(i));
  return t === '.' || t === '%2e' ? 1 : t === '..' || t === '.%2e' || t === '%2e.' || t === '%2e%2e' ? 2 : 0;
}
// The basic URL parser: a new record, or url changed in place when a state override is given; null for failure.
function basicParse(input, base, url, override) {
  const q = codePoints(input);
  let p = q.p;
  let n = q.n;
  let start = 0;
  if (url === undefined) {
    url = newRecord();
    while (start < n && p[start] <= 32) start++;
    while (n > start && p[n - 1] <= 32) n--;
  }
  const kept = new I32(n - start);
  let m = 0;
  for (let i = start; i < n; i++) if (p[i] !== 9 && p[i] !== 10 && p[i] !== 13) kept[m++] = p[i];
  p = kept;
  n = m;
  const at = (i) => (i < n ? p[i] : EOF);
  const ends = (c) => c === EOF || c === 47 || c === 63 || c === 35 || (c === 92 && isSpecial(url));
  let state = override === undefined ? 0 : override;
  let buf = '';
  let atSign = false;
  let brackets = false;
  let passSeen = false;
  let from = -1;
  for (let i = 0; ; i++) {
    const c = at(i);
    switch (state) {
      case 0:
        if (isAlpha(c)) {
          buf += lowerChar(c);
          state = 1;
        } else if (override === undefined) {
          state = 2;
          i--;
        } else return null;
        break;
      case 1:
        if (isAlpha(c) || isDigit(c) || c === 43 || c === 45 || c === 46) buf += lowerChar(c);
        else if (c === 58) {
          if (override !== undefined) {
            if (isSpecial(url) !== (SPECIAL_PORTS[buf] !== undefined)) return url;
            if ((url.user !== '' || url.pass !== '' || url.port !== null) && buf === 'file') return url;
            if (url.scheme === 'file' && url.host === '') return url;
          }
          url.scheme = buf;
          if (override !== undefined) {
            if (url.port === defaultPort(buf)) url.port = null;
            return url;
          }
          buf = '';
          if (url.scheme === 'file') state = 13;
          else if (isSpecial(url) && base !== null && base.scheme === url.scheme) state = 3;
          else if (isSpecial(url)) state = 7;
          else if (at(i + 1) === 47) {
            state = 4;
            i++;
          } else {
            url.path = '';
            state = 18;
          }
        } else if (override === undefined) {
          buf = '';
          state = 2;
          i = -1;
        } else return null;
        break;
      case 2:
        if (base === null || (typeof base.path === 'string' && c !== 35)) return null;
        if (typeof base.path === 'string') {
          url.scheme = base.scheme;
          url.path = base.path;
          url.query = base.query;
          url.frag = '';
          state = 20;
        } else {
          state = base.scheme !== 'file' ? 5 : 13;
          i--;
        }
        break;
      case 3:
        if (c === 47 && at(i + 1) === 47) {
          state = 8;
          i++;
        } else {
          state = 5;
          i--;
        }
        break;
      case 4:
        if (c === 47) state = 9;
        else {
          state = 17;
          i--;
        }
        break;
      case 5:
        url.scheme = base.scheme;
        if (c === 47 || (c === 92 && isSpecial(url))) state = 6;
        else {
          url.user = base.user;
          url.pass = base.pass;
          url.host = base.host;
          url.port = base.port;
          url.path = copyPath(base.path);
          url.query = base.query;
          if (c === 63) {
            url.query = '';
            state = 19;
          } else if (c === 35) {
            url.frag = '';
            state = 20;
          } else if (c !== EOF) {
            url.query = null;
            shortenPath(url);
            state = 17;
            i--;
          }
        }
        break;
      case 6:
        if (isSpecial(url) && (c === 47 || c === 92)) state = 8;
        else if (c === 47) state = 9;
        else {
          url.user = base.user;
          url.pass = base.pass;
          url.host = base.host;
          url.port = base.port;
          state = 17;
          i--;
        }
        break;
      case 7:
        state = 8;
        if (c === 47 && at(i + 1) === 47) i++;
        else i--;
        break;
      case 8:
        if (c !== 47 && c !== 92) {
          state = 9;
          i--;
        }
        break;
      case 9:
        if (from < 0) from = i;
        if (c === 64) {
          if (atSign) {
            if (passSeen) url.pass += '%40';
            else url.user += '%40';
          }
          atSign = true;
          for (let k = from; k < i; k++) {
            if (p[k] === 58 && !passSeen) {
              passSeen = true;
              continue;
            }
            if (passSeen) url.pass += percentEncode(p[k], USERINFO);
            else url.user += percentEncode(p[k], USERINFO);
          }
          from = i + 1;
        } else if (ends(c)) {
          if (atSign && from === i) return null;
          i = from - 1;
          state = 10;
        }
        break;
      case 10:
      case 11:
        if (override !== undefined && url.scheme === 'file') {
          i--;
          state = 15;
        } else if (c === 58 && !brackets) {
          if (buf === '') return null;
          if (override === 11) return null;
          const h = parseHost(buf, !isSpecial(url));
          if (h === null) return null;
          url.host = h;
          buf = '';
          state = 12;
        } else if (ends(c)) {
          i--;
          if (isSpecial(url) && buf === '') return null;
          if (override !== undefined && buf === '' && (url.user !== '' || url.pass !== '' || url.port !== null)) return null;
          const h = parseHost(buf, !isSpecial(url));
          if (h === null) return null;
          url.host = h;
          buf = '';
          state = 16;
          if (override !== undefined) return url;
        } else {
          if (c === 91) brackets = true;
          if (c === 93) brackets = false;
          buf += fromCodePoint(c);
        }
        break;
      case 12:
        if (isDigit(c)) buf += lowerChar(c);
        else if (ends(c) || override !== undefined) {
          if (buf !== '') {
            let port = 0;
            const bc = chars(buf);
            for (let k = 0; k < buf.length; k++) {
              port = port * 10 + bc(k) - 48;
              if (port > 65535) return null;
            }
            url.port = port === defaultPort(url.scheme) ? null : port;
            buf = '';
            if (override !== undefined) return url;
          }
          if (override !== undefined) return null;
          state = 16;
          i--;
        } else return null;
        break;
      case 13:
        url.scheme = 'file';
        url.host = '';
        if (c === 47 || c === 92) state = 14;
        else if (base !== null && base.scheme === 'file') {
          url.host = base.host;
          url.path = copyPath(base.path);
          url.query = base.query;
          if (c === 63) {
            url.query = '';
            state = 19;
          } else if (c === 35) {
            url.frag = '';
            state = 20;
          } else if (c !== EOF) {
            url.query = null;
            if (!startsWithDrive(p, n, i)) shortenPath(url);
            else url.path = [];
            state = 17;
            i--;
          }
        } else {
          state = 17;
          i--;
        }
        break;
      case 14:
        if (c === 47 || c === 92) state = 15;
        else {
          if (base !== null && base.scheme === 'file') {
            url.host = base.host;
            const b0 = typeof base.path !== 'string' && base.path.length > 0 ? base.path[0] : '';
            if (!startsWithDrive(p, n, i) && isDriveLetter(b0) && A(I.charCodeAt, b0, [1]) === 58) push(url.path, b0);
          }
          state = 17;
          i--;
        }
        break;
      case 15:
        if (c === EOF || c === 47 || c === 92 || c === 63 || c === 35) {
          i--;
          if (override === undefined && isDriveLetter(buf)) state = 17;
          else if (buf === '') {
            url.host = '';
            if (override !== undefined) return url;
            state = 16;
          } else {
            let h = parseHost(buf, !isSpecial(url));
            if (h === null) return null;
            if (h === 'localhost') h = '';
            url.host = h;
            if (override !== undefined) return url;
            buf = '';
            state = 16;
          }
        } else buf += fromCodePoint(c);
        break;
      case 16:
        if (isSpecial(url)) {
          state = 17;
          if (c !== 47 && c !== 92) i--;
        } else if (override === undefined && c === 63) {
          url.query = '';
          state = 19;
        } else if (override === undefined && c === 35) {
          url.frag = '';
          state = 20;
        } else if (c !== EOF) {
          state = 17;
          if (c !== 47) i--;
        } else if (override !== undefined && url.host === null) push(url.path, '');
        break;
      case 17:
        if (c === EOF || c === 47 || (c === 92 && isSpecial(url)) || (override === undefined && (c === 63 || c === 35))) {
          const slash = c === 47 || (c === 92 && isSpecial(url));
          const d = dotSegment(buf);
          if (d === 2) {
            shortenPath(url);
            if (!slash) push(url.path, '');
          } else if (d === 1 && !slash) push(url.path, '');
          else if (d === 0) {
            if (url.scheme === 'file' && url.path.length === 0 && isDriveLetter(buf)) buf = slice(buf, 0, 1) + ':';
            push(url.path, buf);
          }
          buf = '';
          if (c === 63) {
            url.query = '';
            state = 19;
          }
          if (c === 35) {
            url.frag = '';
            state = 20;
          }
        } else buf += percentEncode(c, PATH);
        break;
      case 18:
        if (c === 63) {
          url.query = '';
          state = 19;
        } else if (c === 35) {
          url.frag = '';
          state = 20;
        } else if (c === 32) url.path += at(i + 1) === 63 || at(i + 1) === 35 ? '%20' : ' ';
        else if (c !== EOF) url.path += percentEncode(c, 0);
        break;
      case 19:
        if (override === undefined && c === 35) {
          url.frag = '';
          state = 20;
        } else if (c !== EOF) url.query += percentEncode(c, isSpecial(url) ? SPECIAL_QUERY : QUERY);
        break;
      case 20:
        if (c !== EOF) url.frag += percentEncode(c, FRAGMENT);
        break;
    }
    if (i >= n) return url;
  }
}
// Whether p[i…] starts with a Windows drive letter.
const startsWithDrive = (p, n, i) =>
  n - i >= 2 &&
  isAlpha(p[i]) &&
  (p[i + 1] === 58 || p[i + 1] === 124) &&
  (n - i === 2 || p[i + 2] === 47 || p[i + 2] === 92 || p[i + 2] === 63 || p[i + 2] === 35);
const serializePath = (r) => {
  if (typeof r.path === 'string') return r.path;
  let out = '';
  for (let i = 0; i < r.path.length; i++) out += '/' + r.path[i];
  return out;
};
function serialize(r) {
  let out = r.scheme + ':';
  if (r.host !== null) {
    out += '//';
    if (r.user !== '' || r.pass !== '') out += r.user + (r.pass !== '' ? ':' + r.pass : '') + '@';
    out += r.host + (r.port !== null ? ':' + r.port : '');
  } else if (typeof r.path !== 'string' && r.path.length > 1 && r.path[0] === '') out += '/.';
  return out + serializePath(r) + (r.query !== null ? '?' + r.query : '') + (r.frag !== null ? '#' + r.frag : '');
}
function originOf(r) {
  if (r.scheme === 'blob') {
    const inner = basicParse(serializePath(r), null);
    return inner !== null && (inner.scheme === 'http' || inner.scheme === 'https') ? originOf(inner) : 'null';
  }
  if (r.scheme === 'file' || !isSpecial(r)) return 'null';
  return r.scheme + '://' + r.host + (r.port !== null ? ':' + r.port : '');
}
const cannotHaveCredentials = (r) => r.host === null || r.host === '' || r.scheme === 'file';
