-- Reserve fencing numbers (election terms or lock tokens) up to a new ceiling, which the caller has
-- already recorded durably. On a Redis without a reservation of its own (restarted, or a replica
-- promoted), or whose own is below the floor (another Redis process was reserved for since), first
-- raise the counter to the floor, so the next number is above every one issued.
-- KEYS[1] counter (integer, no expiry)
-- KEYS[2] reservation ('<ceiling>:<run id>')   KEYS[3] the replication id it was made in
-- ARGV[1] floor: no number issued so far is above it (the durable ceiling before this reservation)
-- ARGV[2] the new ceiling; a higher ceiling in force is kept
-- Returns {ceiling in force, counter}.
--#include reservation
local ceiling, runid, replid = reservation(KEYS[2], KEYS[3])
local counter = tonumber(redis.call('GET', KEYS[1]) or '0')
if ceiling < tonumber(ARGV[1]) and counter < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1])
  counter = tonumber(ARGV[1])
end
if tonumber(ARGV[2]) > ceiling then
  redis.call('SET', KEYS[2], ARGV[2] .. ':' .. runid)
  redis.call('SET', KEYS[3], replid)
  ceiling = tonumber(ARGV[2])
end
return {ceiling, counter}
