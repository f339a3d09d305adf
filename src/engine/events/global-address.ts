/**
 * Whether a host, as the URL parser wrote it, can reach an address off the public internet: the
 * rule for the addresses this server POSTs to on a client's word (an events callback). A literal
 * IPv6 address is judged by every form that carries an IPv4 address inside it (IPv4-compatible
 * `[::127.0.0.1]`, mapped, translated, NAT64, 6to4, Teredo), as well as by its own special ranges,
 * because a relay or the network stack can turn each of those into the IPv4 address it holds. A name
 * is judged as written: one that resolves to a private address is the platform's to refuse
 * (`global_fetch_strictly_public`).
 */

/** Special-purpose IPv4 ranges (RFC 6890 and its registry) that are not globally reachable. */
function nonGlobalV4(a: number, b: number, c: number): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) ||
    (a === 192 && b === 88 && c === 99) ||
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) ||
    (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113) ||
    a >= 224
  );
}

/** The eight 16-bit groups of an IPv6 address as the URL parser writes it (lowercase hex, `::` at most once). */
function groupsOf(v6: string): number[] | undefined {
  const halves = v6.split("::");
  if (halves.length > 2) return undefined;
  const part = (s: string) => (s ? s.split(":").map((g) => Number.parseInt(g, 16)) : []);
  const [head, tail] = [part(halves[0]!), part(halves[1] ?? "")];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<number>(halves.length === 1 ? 0 : missing).fill(0), ...tail];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

/** The IPv4 address in two 16-bit groups, judged. */
const embedded = (hi: number, lo: number) => nonGlobalV4(hi >> 8, hi & 255, lo >> 8);

function nonGlobalV6(v6: string): boolean {
  const g = groupsOf(v6);
  // Not an address the parser would write: refused rather than guessed at.
  if (!g) return true;
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  // ::/96 holds the unspecified and loopback addresses and the IPv4-compatible form ([::127.0.0.1]).
  if (zeroTo(6)) return true;
  // IPv4-mapped (::ffff:0:0/96) and IPv4-translated (::ffff:0:0:0/96): the stack speaks IPv4 to them.
  if (zeroTo(5) && g5 === 0xffff) return true;
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return true;
  // NAT64: the well-known prefix (64:ff9b::/96) reaches the IPv4 address it holds; the local-use one (64:ff9b:1::/48) is private.
  if (g0 === 0x64 && g1 === 0xff9b) return g2 === 1 || !(g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) || embedded(g6, g7);
  // 6to4 (2002::/16): a relay delivers to the IPv4 address in the next 32 bits.
  if (g0 === 0x2002) return embedded(g1, g2);
  // 2001::/23 is for protocols (Teredo's 2001::/32 carries an IPv4 client, ORCHID, benchmarking); 2001:db8::/32 is documentation.
  if (g0 === 0x2001 && (g1 < 0x200 || g1 === 0xdb8)) return true;
  // Discard-only (100::/64), unique-local (fc00::/7), link-local (fe80::/10), site-local (fec0::/10), multicast (ff00::/8).
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return true;
  return (g0 & 0xfe00) === 0xfc00 || (g0 & 0xffc0) === 0xfe80 || (g0 & 0xffc0) === 0xfec0 || (g0 & 0xff00) === 0xff00;
}

/** Whether `hostname` (URL.hostname) names a host off the public internet, as far as the name or literal address says. */
export function nonGlobalHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || [".localhost", ".local", ".internal", ".home.arpa"].some((s) => host.endsWith(s))) return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4) return nonGlobalV4(Number(v4[1]), Number(v4[2]), Number(v4[3]));
  if (host.startsWith("[")) return nonGlobalV6(host.slice(1, -1));
  // A bare number (http://2130706433/) is an IPv4 address the URL parser would normally have rewritten.
  return /^\d+$/.test(host);
}
