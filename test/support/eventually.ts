/**
 * Polls `check` every 5 ms until it holds. The bound (`ms`, default 5 s) only stops a broken test:
 * what is polled (a watch delivering a store change) normally holds within milliseconds.
 * @throws Error('condition not reached') past the bound
 */
export async function eventually(check: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 5));
  }
}
