-- An open gate extends its key; it never takes a key that is gone or another's.
-- KEYS[1] the gate key
-- ARGV[1] this agent's value   ARGV[2] time-to-live in ms
-- Returns 1 when extended, 0 when the key is not this agent's (the gate must close at once).
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
