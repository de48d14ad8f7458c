-- Gates that have closed every connection mark their hold released and tell the waiting
-- successors at once: a released key is taken without waiting. A hold taken from an absent key
-- and not yet proven is never marked released (the wait that protects against a holder whose key
-- was lost must not be skipped); it is left to go stale.
--#include hold-value
-- ARGV[1] this hold   ARGV[2] the key's own lifetime in ms
-- Returns {code, the value found, this incarnation, Redis's time in ms}: 1 released, 0 not
-- (another's, released, unproven or absent).
local inc = incarnation()
local now = millis()
local cur, raw = current(KEYS[1], inc)
if cur and cur.hold == ARGV[1] and cur.state == 'H' then
  write(cur, 'R', cur.term, inc, ARGV[1], ARGV[2])
  tell(KEYS[1])
  return {1, cur.raw, inc, now}
end
return {0, raw or '', inc, now}
