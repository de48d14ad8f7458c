-- Acquire a free lease, or take it over from the holder the caller saw, and raise the term, atomically.
-- KEYS[1] holder record (string, PX expiry)      KEYS[2] term counter (integer, no expiry)
-- KEYS[3] term reservation (see the reservation fragment)
-- KEYS[4] handover: the record taken over, kept for the rest of its lease, until its pod lets go
-- KEYS[5] the replication id the term reservation was made in
-- ARGV[1] holder the caller expects to replace ('' = take it only if free)
-- ARGV[2] new holder record without its term; '|' .. term is appended
-- ARGV[3] lease ttl in milliseconds
-- ARGV[4] the highest reservation the caller knows was made durably (0: none known). A reservation
--         below it here means another Redis process was reserved for since, and may have issued up
--         to it: this one may be a master that hung, was replaced, and serves before it learns so.
-- ARGV[5] (optional) 'exact': ARGV[4] is the reservation this election's own status records, and a
--         reservation above it here was not recorded there either (another resource's, before this
--         one took the key over; or another cluster's): refused too, so the caller records a ceiling
--         above it before a term is issued under it.
-- Returns {1, record, term} when acquired; {0, current record, pttl} when someone else holds it;
-- {-1, '', floor} when no reservation on this Redis covers the next term, is older than ARGV[4] or,
-- with 'exact', newer (the operator reserves terms above floor, the counter or the ceiling here,
-- whichever is higher, then tries again).
-- An acquisition publishes KEYS[1] on baton:leases.
--#include reservation
local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[1] then
  return {0, current, redis.call('PTTL', KEYS[1])}
end
local counter = tonumber(redis.call('GET', KEYS[2]) or '0')
local ceiling = reservation(KEYS[3], KEYS[5])
local known = tonumber(ARGV[4])
if counter + 1 > ceiling or ceiling < known or (ARGV[5] == 'exact' and ceiling > known) then
  return {-1, '', math.max(counter, ceiling)}
end
local term = redis.call('INCR', KEYS[2])
local record = ARGV[2] .. '|' .. term
if current then
  local left = redis.call('PTTL', KEYS[1])
  if left > 0 then
    redis.call('SET', KEYS[4], current, 'PX', left)
  end
end
redis.call('SET', KEYS[1], record, 'PX', ARGV[3])
-- pcall: a Redis user without the channel (an ACL from before it) still elects; followers poll.
redis.pcall('PUBLISH', 'baton:leases', KEYS[1])
return {1, record, term}
