-- A hold renews itself: the value takes a new write number, so a taker watching it starts its
-- wait over.
--#include hold-value
-- ARGV[1] this hold   ARGV[2] its term
-- ARGV[3] the hold name an absent key is taken again under, or '' when it may not be: the agent's
--         gates are open and this renewal was sent before their deadline. The name is this
--         renewal's own; the agent opens on the answer only if it comes back before that
--         deadline, since a renewal that ran late may find a key lost after another gate opened
-- ARGV[4] '1' when this renewal proves a hold taken from an absent key (sent a whole
--         confirmWithin after the take's answer): the value then says so, for the followers
-- ARGV[5] the key's own lifetime in ms
-- Returns {code, the value found, this incarnation, Redis's time in ms}: 1 renewed, 3 taken
-- again, 2 absent (lost) and not taken again, 0 another's, released, or absent with a newer term
-- recorded beside it (the gates must close).
local inc = incarnation()
local now = millis()
local cur, raw = current(KEYS[1], inc)
if cur and cur.hold == ARGV[1] and cur.state ~= 'R' then
  local state = cur.state
  if ARGV[4] == '1' then
    state = 'H'
  end
  write(cur, state, cur.term, inc, ARGV[1], ARGV[5])
  if state ~= cur.state then
    tell(KEYS[1])
  end
  return {1, cur.raw, inc, now}
end
if not cur then
  local term = tonumber(ARGV[2])
  if term < (tonumber(redis.call('GET', KEYS[2]) or '0') or 0) then
    return {0, raw or '', inc, now}
  end
  if ARGV[3] ~= '' then
    write(cur, 'H', term, inc, ARGV[3], ARGV[5])
    redis.call('SET', KEYS[2], term, 'PX', ARGV[5])
    tell(KEYS[1])
    return {3, raw or '', inc, now}
  end
  return {2, raw or '', inc, now}
end
return {0, cur.raw, inc, now}
