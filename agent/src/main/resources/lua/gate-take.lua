-- An agent whose pod is confirmed leader takes its group's gate key, so that its gate may open.
-- KEYS[1] the gate key, baton:{gate:<namespace>/<group>}
-- ARGV[1] this agent's value (pod:<namespace>/<name>/<uid>:<random>)   ARGV[2] time-to-live in ms
-- Returns 1 when the key is this agent's now (taken, or already its own and extended), else 0: a
-- predecessor's gate may still be open, and this one must stay shut until that key is gone.
local held = redis.call('GET', KEYS[1])
if held == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if held then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
