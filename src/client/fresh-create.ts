// A protocol's create that never hands back an ended session, shared by acp.ts and ucp.ts.

/** A create with a derived key opens a new session over at most this many ended ones of its own. */
const MAX_GENERATIONS = 10;

/**
 * A protocol's create under a key derived from the call (createAcpSession, createUcpCheckout): a
 * replayed answer is read again as the session is now, and a session that has ended is not handed
 * back: the call is made again under a key naming the ended one, which opens a new session (and
 * whose own retry answers that one), as `create_checkout` never hands back a dead checkout.
 */
export async function freshCreate<T>(o: {
  create: (after: string | undefined, replayed: () => void) => Promise<T>;
  idOf: (answer: T) => string | undefined;
  now: (id: string) => Promise<T>;
  ended: (answer: T) => boolean;
}): Promise<T> {
  let after: string | undefined;
  for (let generation = 0; ; generation++) {
    let replayed = false;
    const answer = await o.create(after, () => {
      replayed = true;
    });
    const id = o.idOf(answer);
    if (!replayed || id === undefined) return answer;
    const now = await o.now(id);
    if (!o.ended(now) || generation >= MAX_GENERATIONS) return now;
    after = id;
  }
}
