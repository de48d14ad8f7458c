-- The key as it is, for the followers' answers (who leads, where) and for a taker's watch.
--#include hold-value
-- Returns {code, the value ('' when absent), this incarnation, Redis's time in ms}: 1 when this
-- incarnation wrote it, 0 when absent or another incarnation's.
local inc = incarnation()
local now = millis()
local cur, raw = current(KEYS[1], inc)
if cur then
  return {1, cur.raw, inc, now}
end
return {0, raw or '', inc, now}
