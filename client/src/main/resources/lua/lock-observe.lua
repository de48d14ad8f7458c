-- Read a lock, its token counter and the reservation in force, without changing anything.
-- KEYS[1] lock      KEYS[2] token counter      KEYS[3] token reservation
-- KEYS[4] the replication id the reservation was made in
-- Returns {0, current value or '', pttl, counter, ceiling in force or -1}.
--#include reservation
local current = redis.call('GET', KEYS[1])
local counter = tonumber(redis.call('GET', KEYS[2]) or '0')
local ceiling = reservation(KEYS[3], KEYS[4])
return {0, current or '', redis.call('PTTL', KEYS[1]), counter, ceiling}
