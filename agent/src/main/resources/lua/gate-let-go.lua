-- A gate that has closed every connection gives its key up and tells waiting successors at once.
-- KEYS[1] the gate key (its name is the message on the channel baton:gates)
-- ARGV[1] this agent's value
-- Returns 1 when the key was this agent's and is gone, else 0 (it had expired or was another's).
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', 'baton:gates', KEYS[1])
  return 1
end
return 0
