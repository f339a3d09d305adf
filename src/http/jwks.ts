/**
 * The issuer's signing keys (a JWKS, RFC 7517), inline or fetched, and the one key a token's
 * header selects. Only asymmetric JWS algorithms (RFC 7518 §3, RFC 8037) are accepted: a
 * published key set holds public keys, so an HMAC "alg" can never be verified against it.
 */

/** What a JWS "alg" needs from a key: its type (and curve), and the WebCrypto parameters. */
interface JwsAlgorithm {
  kty: "RSA" | "EC" | "OKP";
  crv?: string;
  /** importKey parameters. */
  key: SubtleCryptoImportKeyAlgorithm;
  /** verify parameters. */
  verify: SubtleCryptoSignAlgorithm;
}

const rsa = (bits: number, pss: boolean): JwsAlgorithm => {
  const name = pss ? "RSA-PSS" : "RSASSA-PKCS1-v1_5";
  return { kty: "RSA", key: { name, hash: `SHA-${bits}` }, verify: pss ? { name, saltLength: bits / 8 } : { name } };
};
const ecdsa = (crv: string, bits: number): JwsAlgorithm => ({ kty: "EC", crv, key: { name: "ECDSA", namedCurve: crv }, verify: { name: "ECDSA", hash: `SHA-${bits}` } });
const ed25519: JwsAlgorithm = { kty: "OKP", crv: "Ed25519", key: { name: "Ed25519" }, verify: { name: "Ed25519" } };

const ALGORITHMS: Record<string, JwsAlgorithm> = {
  RS256: rsa(256, false),
  RS384: rsa(384, false),
  RS512: rsa(512, false),
  PS256: rsa(256, true),
  PS384: rsa(384, true),
  PS512: rsa(512, true),
  ES256: ecdsa("P-256", 256),
  ES384: ecdsa("P-384", 384),
  ES512: ecdsa("P-521", 512),
  EdDSA: ed25519,
  Ed25519: ed25519,
};

/** The algorithm entry for a header "alg", or undefined when it is not one a key set can verify. */
export const jwsAlgorithm = (alg: unknown): JwsAlgorithm | undefined => (typeof alg === "string" && Object.hasOwn(ALGORITHMS, alg) ? ALGORITHMS[alg] : undefined);

/** A plain JSON object (not an array, not null). */
export const isPlainObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && Object.prototype.toString.call(x) === "[object Object]";

type Jwk = Record<string, unknown>;

/** A verification key for a token header; throws when no key, or more than one, fits. */
export type KeyResolver = (header: Record<string, unknown>) => Promise<{ key: CryptoKey; algorithm: JwsAlgorithm }>;

/** Thrown when no key of the set fits the header, so a fetched set can be refreshed once. */
class NoMatchingKey extends Error {}

/** RFC 7517 §4: a key fits when its type, curve, id, "alg", "use" and "key_ops" all allow this use. */
function fits(jwk: Jwk, entry: JwsAlgorithm, alg: string, kid: unknown): boolean {
  const ops = jwk.key_ops;
  return (
    (jwk.ext === undefined || typeof jwk.ext === "boolean") &&
    (ops === undefined || (Array.isArray(ops) && ops.every((op, i) => typeof op === "string" && ops.indexOf(op) === i) && ops.includes("verify"))) &&
    jwk.kty === entry.kty &&
    (kid === undefined || (typeof kid === "string" && kid === jwk.kid)) &&
    (jwk.alg === undefined || jwk.alg === alg) &&
    (jwk.use === undefined || jwk.use === "sig") &&
    (!entry.crv || jwk.crv === entry.crv)
  );
}

/** A fixed key set. Imported keys are cached per key and algorithm. */
export function localKeySet(jwks: unknown): KeyResolver {
  if (!isPlainObject(jwks) || !Array.isArray(jwks.keys) || !jwks.keys.every(isPlainObject)) throw new Error("JSON Web Key Set malformed");
  const keys = (jwks.keys as Jwk[]).map((k) => ({ ...k }));
  const imported = new Map<string, Promise<CryptoKey>>();
  return async (header) => {
    const { alg, kid } = header;
    const entry = jwsAlgorithm(alg);
    if (!entry) throw new Error('Unsupported "alg" value for a JSON Web Key Set');
    const candidates = keys.map((jwk, i) => [jwk, i] as const).filter(([jwk]) => fits(jwk, entry, alg as string, kid));
    if (candidates.length === 0) throw new NoMatchingKey("no applicable key found in the JSON Web Key Set");
    if (candidates.length > 1) throw new Error("multiple matching keys found in the JSON Web Key Set");
    const [jwk, index] = candidates[0]!;
    const cacheKey = `${index} ${alg as string}`;
    let key = imported.get(cacheKey);
    if (!key) {
      const { alg: _alg, use: _use, ...keyData } = jwk;
      key = crypto.subtle.importKey("jwk", keyData as unknown as JsonWebKey, entry.key, true, (jwk.key_ops as string[] | undefined) ?? ["verify"]).then((k) => {
        if (k.type !== "public") throw new Error("JSON Web Key Set members must be public keys");
        return k;
      });
      imported.set(cacheKey, key);
      key.catch(() => imported.delete(cacheKey));
    }
    return { key: await key, algorithm: entry };
  };
}

/** How long a fetched key set is used, and how soon an unknown key may refetch it (the issuer rotated). */
const CACHE_MS = 10 * 60_000;
const COOLDOWN_MS = 30_000;
const FETCH_TIMEOUT_MS = 5_000;

/**
 * A key set fetched from the issuer's jwks_uri: refetched when older than ten minutes, or
 * when a token names a key it lacks (at most every 30 s, so unknown ids cannot make us fetch
 * on every request). Each fetch stays within the request that made it (Workers do not share I/O).
 */
export function remoteKeySet(url: URL): KeyResolver {
  const href = url.href;
  let local: KeyResolver | undefined;
  let fetchedAt = -Infinity;
  const reload = async () => {
    const res = await fetch(href, {
      method: "GET",
      redirect: "manual",
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      headers: { accept: "application/json, application/jwk-set+json" },
    });
    if (res.status !== 200) throw new Error("Expected 200 OK from the JSON Web Key Set HTTP response");
    let json: unknown;
    try {
      json = await res.json();
    } catch {
      throw new Error("Failed to parse the JSON Web Key Set HTTP response as JSON");
    }
    local = localKeySet(json);
    fetchedAt = Date.now();
  };
  return async (header) => {
    if (!local || Date.now() >= fetchedAt + CACHE_MS) await reload();
    try {
      return await local!(header);
    } catch (err) {
      if (!(err instanceof NoMatchingKey) || Date.now() < fetchedAt + COOLDOWN_MS) throw err;
      await reload();
      return local!(header);
    }
  };
}
