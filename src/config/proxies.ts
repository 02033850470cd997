// TRUST_PROXY: which proxies in front of the service to believe about the client's address.
import { isIP } from 'node:net';
import { list, truncate } from './parse.ts';

/** None (false), the nearest N hops, or these addresses/CIDRs. Never every hop. */
export type TrustProxy = false | number | string[];

const PROXY_KEYWORDS = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * TRUST_PROXY: `false`, a hop count (`1`: the one proxy in front), or addresses/CIDRs of the
 * proxies. `true` is refused: trusting every hop lets a caller pick their own address by
 * sending X-Forwarded-For, and with it escape every per-address limit.
 */
export function trustedProxies(raw: string | undefined, problems: string[]): TrustProxy {
  const v = raw?.trim() ?? '';
  if (v === '' || v === 'false' || v === '0') return false;
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops <= 10) return hops;
    problems.push('TRUST_PROXY: a hop count must be between 0 and 10');
    return false;
  }
  if (v === 'true') {
    problems.push(
      'TRUST_PROXY: "true" would trust every hop (any client could choose its address); give the number of proxies in front (e.g. 1) or their addresses/CIDRs',
    );
    return false;
  }
  const entries = list(v);
  for (const e of entries) {
    const [addr, bits, extra] = e.split('/');
    const family = isIP(addr ?? '');
    const bitsOk =
      bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!PROXY_KEYWORDS.includes(e) && (!family || !bitsOk || extra !== undefined)) {
      problems.push(
        `TRUST_PROXY: "${truncate(e)}" is not a hop count, an address, a CIDR or one of ${PROXY_KEYWORDS.join(', ')}`,
      );
    }
  }
  return entries;
}
