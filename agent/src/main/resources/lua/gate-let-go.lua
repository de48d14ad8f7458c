-- A gate that has closed every connection marks its hold released and tells the waiting
-- successors at once: a released key is taken without waiting. A hold taken from an absent key
-- and not yet proven is never marked released (the wait that protects against a holder whose key
-- was lost must not be skipped); it is left to go stale.
-- KEYS[1] the gate key   ARGV[1] this hold   ARGV[2] the key's own lifetime in ms
-- Returns {code, the value found, this incarnation, Redis's time in ms}: 1 released, 0 not
-- (another's, released, unproven or absent).
--#include gate-value
local inc = incarnation()
local now = millis()
local cur, raw = current(KEYS[1], inc)
if cur and cur.hold == ARGV[1] and cur.state == 'H' then
  write(KEYS[1], 'R', cur.term, cur.seq + 1, inc, ARGV[1], ARGV[2])
  tell(KEYS[1])
  return {1, cur.raw, inc, now}
end
return {0, raw or '', inc, now}
