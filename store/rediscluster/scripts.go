package rediscluster

import "github.com/redis/go-redis/v9"

// Shared Lua: a posting family's address of a key (linear hashing over
// the key's 32-bit fingerprint), and the comparison of two members' weights.
const luaFamily = `
local function low(fp, bits)
  local v = ((string.byte(fp, 1) * 256 + string.byte(fp, 2)) * 256 + string.byte(fp, 3)) * 256 + string.byte(fp, 4)
  return v % (2 ^ bits)
end
local function state(key)
  local st = redis.call('HGET', key, 's')
  if not st then return 0, 0, 0 end
  local L, p, n = string.match(st, '^(%d+),(%d+),(%d+)$')
  return tonumber(L), tonumber(p), tonumber(n)
end
local function setState(key, L, p, n)
  redis.call('HSET', key, 's', L .. ',' .. p .. ',' .. n)
end
local function addr(fp, L, p)
  local a = low(fp, L)
  if a < p then a = low(fp, L + 1) end
  return a
end
local function bucket(key, a)
  local b = redis.call('HGET', key, 'b' .. a)
  if not b then return '' end
  return b
end
local function put(key, a, b)
  if b == '' then redis.call('HDEL', key, 'b' .. a) else redis.call('HSET', key, 'b' .. a, b) end
end
-- entries returns the offsets of fp's entries in bucket b.
local function entries(b, fp)
  local out, init = {}, 1
  while true do
    local i = string.find(b, fp, init, true)
    if not i then return out end
    if (i - 1) % 8 == 0 then out[#out + 1] = i; init = i + 8 else init = i + 1 end
  end
end
local zero = '\0\0\0\0'
`

// addScript adds postings to a posting family (KEYS[1]): ARGV[1] is how
// many postings a list takes before it is full, ARGV[2] how many postings
// a bucket holds on average before the family splits one, then the
// postings, 8 bytes each: the key's fingerprint and the sequence number
// (0: make the list full). A full list is one marker entry (sequence
// number 0) and takes no more. It returns how many postings were added.
var addScript = redis.NewScript(luaFamily + `
local key, limit, load = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])
local L, p, n = state(key)
local buckets, added = {}, 0
for i = 3, #ARGV do
  local e = ARGV[i]
  local fp, seq = string.sub(e, 1, 4), string.sub(e, 5, 8)
  local a = addr(fp, L, p)
  local b = buckets[a] or bucket(key, a)
  local full, dup, count = false, false, 0
  local at = entries(b, fp)
  for _, j in ipairs(at) do
    local s = string.sub(b, j + 4, j + 7)
    if s == zero then full = true elseif s == seq then dup = true else count = count + 1 end
  end
  if not full and not dup then
    if seq == zero or count >= limit then
      local kept, last = {}, 1
      for _, j in ipairs(at) do
        kept[#kept + 1] = string.sub(b, last, j - 1)
        last = j + 8
      end
      kept[#kept + 1] = string.sub(b, last)
      b = table.concat(kept) .. fp .. zero
      n = n - count + 1
    else
      b = b .. e
      n = n + 1
      added = added + 1
    end
    buckets[a] = b
  end
end
for a, b in pairs(buckets) do put(key, a, b) end
local nb = 2 ^ L + p
while n > load * nb do
  local src = bucket(key, p)
  local keep, move = {}, {}
  for j = 1, #src, 8 do
    local e = string.sub(src, j, j + 7)
    if low(string.sub(e, 1, 4), L + 1) == p then keep[#keep + 1] = e else move[#move + 1] = e end
  end
  put(key, p, table.concat(keep))
  put(key, p + 2 ^ L, table.concat(move))
  p = p + 1
  if p == 2 ^ L then L, p = L + 1, 0 end
  nb = nb + 1
end
setState(key, L, p, n)
return added
`)

// removeScript removes postings (ARGV: 8 bytes each, as addScript's)
// from a posting family (KEYS[1]); a full list stays full.
var removeScript = redis.NewScript(luaFamily + `
local key = KEYS[1]
local L, p, n = state(key)
local buckets = {}
for i = 1, #ARGV do
  local e = ARGV[i]
  local fp = string.sub(e, 1, 4)
  local a = addr(fp, L, p)
  local b = buckets[a] or bucket(key, a)
  for _, j in ipairs(entries(b, fp)) do
    if string.sub(b, j, j + 7) == e then
      b = string.sub(b, 1, j - 1) .. string.sub(b, j + 8)
      n = n - 1
      break
    end
  end
  buckets[a] = b
end
for a, b in pairs(buckets) do put(key, a, b) end
setState(key, L, p, n)
return 0
`)

// numberScript ranks a posted batch: KEYS[1] the rank counter, KEYS[2]
// the numbered batches (a sorted set by first sequence number, members
// "first:n:rank"); ARGV the batch's first sequence number and size. It
// returns the batch's first rank.
var numberScript = redis.NewScript(`
local n = tonumber(ARGV[2])
local last = redis.call('INCRBY', KEYS[1], n)
local first = last - n + 1
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[1] .. ':' .. n .. ':' .. first)
return first
`)

// Members of a cluster (a hash: "r" its representative, "m:<id>" a
// member, valued "<indexed 0|1>,<seq>,<time µs>,<runes>").
const luaMembers = `
local function weights(a)
  local q, t, r = string.match(a, '^%d,(%d+),(%-?%d+),(%d+)$')
  return tonumber(q), tonumber(t), tonumber(r)
end
-- prefer reports whether attributes a should represent a cluster rather
-- than b, under rule ('r': the newer, 'l': the longer then the newer).
local function prefer(a, b, rule)
  local aq, at, ar = weights(a)
  local bq, bt, br = weights(b)
  if rule == 'l' and ar ~= br then return ar > br end
  if at ~= bt then return at > bt end
  return aq > bq
end
`

// joinScript makes a document a member of a cluster (KEYS[1]). ARGV: its
// id, its weights "<seq>,<time µs>,<runes>", the founder's id and weights
// (the cluster is made with the founder as its representative if it does
// not exist; a cluster of its founder alone has no hash, so an empty
// founder, or the document itself, makes nothing when the cluster is
// numbered as the document, ARGV[6] "1"), the rule: 's' suppress, 'm'
// mark, 'r' replace by the newer, 'l' by the longer, 't' take the
// representative's place (it leaves the index), 'T' take it under mark
// (it stays), and whether the cluster is numbered as the document. A
// cluster its founder or its last member left (a hash without "r", see
// leaveScript), or one with no hash and no founder named, is made with
// the document alone, its representative: a founder that left is not
// brought back. It returns the representative afterwards, whether the
// document is indexed, the representative it replaced ("" if none), and
// whether the cluster's hash was made.
var joinScript = redis.NewScript(luaMembers + `
local key, id, w, fid, fw, rule, own = KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local made = 0
if redis.call('HEXISTS', key, 'r') == 0 then
  local left = redis.call('EXISTS', key) == 1
  if not left and fid ~= '' and fid ~= id then
    redis.call('HSET', key, 'r', fid, 'm:' .. fid, '1,' .. fw)
    made = 1
  elseif not left and own == '1' then
    return {id, 1, '', 0}
  else
    redis.call('HSET', key, 'r', id, 'm:' .. id, '1,' .. w)
    return {id, 1, '', 1}
  end
end
local rep = redis.call('HGET', key, 'r')
local cur = redis.call('HGET', key, 'm:' .. id)
if cur then
  local flag = string.sub(cur, 1, 1)
  redis.call('HSET', key, 'm:' .. id, flag .. ',' .. w)
  if rep == id then flag = '1' end
  return {rep, tonumber(flag), '', made}
end
local flag, demoted = '0', ''
if rule == 'm' then
  flag = '1'
elseif rule == 'T' then
  redis.call('HSET', key, 'r', id)
  rep, flag = id, '1'
elseif rule == 't' then
  local rw = redis.call('HGET', key, 'm:' .. rep)
  if rw then redis.call('HSET', key, 'm:' .. rep, '0' .. string.sub(rw, 2)) end
  redis.call('HSET', key, 'r', id)
  demoted, rep, flag = rep, id, '1'
elseif rule == 'r' or rule == 'l' then
  local rw = redis.call('HGET', key, 'm:' .. rep)
  if not rw or prefer('1,' .. w, rw, rule) then
    if rw then redis.call('HSET', key, 'm:' .. rep, '0' .. string.sub(rw, 2)) end
    redis.call('HSET', key, 'r', id)
    demoted, rep, flag = rep, id, '1'
  end
end
redis.call('HSET', key, 'm:' .. id, flag .. ',' .. w)
return {rep, tonumber(flag), demoted, made}
`)

// luaLeave removes a member (id) from a cluster (key) and repairs it:
// when it represented the cluster, the earliest member left (rule 'r' or
// 'l': the one replace prefers) takes its place and is indexed. A cluster
// left by its last member, or by its founder alone (it has no hash),
// keeps a mark: a hash whose only field, "x", names the page that left.
// A process that read the cluster before and joins it after (joinScript,
// naming the founder) then makes it again without the page that left,
// not with it: that page is in another cluster now. It returns the
// representative afterwards ("" when the cluster is gone), the member
// promoted into the search index ("" if none), and whether the cluster's
// hash was deleted.
const luaLeave = luaMembers + `
local function leave(key, id, rule)
  if redis.call('EXISTS', key) == 0 then
    redis.call('HSET', key, 'x', id)
    return {'', '', 0}
  end
  local rep = redis.call('HGET', key, 'r') or ''
  if redis.call('HDEL', key, 'm:' .. id) == 0 or rep ~= id then return {rep, '', 0} end
  local all = redis.call('HGETALL', key)
  local best, bw
  for i = 1, #all, 2 do
    local f, a = all[i], all[i + 1]
    if string.sub(f, 1, 2) == 'm:' then
      local better = best == nil
      if not better and (rule == 'r' or rule == 'l') then
        better = prefer(a, bw, rule)
      elseif not better then
        better = weights(a) < weights(bw)
      end
      if better then best, bw = string.sub(f, 3), a end
    end
  end
  if best == nil then
    redis.call('DEL', key)
    redis.call('HSET', key, 'x', id)
    return {'', '', 1}
  end
  redis.call('HSET', key, 'r', best)
  if string.sub(bw, 1, 1) == '1' then return {best, '', 0} end
  redis.call('HSET', key, 'm:' .. best, '1' .. string.sub(bw, 2))
  return {best, best, 0}
end
`

// leaveScript removes a member (ARGV[1]) from a cluster (KEYS[1]) under
// the rule ARGV[2] (see luaLeave).
var leaveScript = redis.NewScript(luaLeave + `
return leave(KEYS[1], ARGV[1], ARGV[2])
`)

// withdrawScript takes a page version that will not be decided, numbered
// ARGV[1], out of the cluster numbered as it (KEYS[1]): other processes
// that read it numbered, and not decided, worked out that it founds this
// cluster and may have joined it, naming it founder; it is decided
// again under another number, so it leaves (see luaLeave; the earliest
// member takes its place), and a process joining later makes the
// cluster without it. A member of the cluster under the same id and
// another number (a later version of the page) stays.
var withdrawScript = redis.NewScript(luaLeave + `
local key, seq = KEYS[1], ARGV[1]
if redis.call('EXISTS', key) == 0 then return leave(key, '#' .. seq, 's') end
local all = redis.call('HGETALL', key)
for i = 1, #all, 2 do
  local f, a = all[i], all[i + 1]
  if string.sub(f, 1, 2) == 'm:' and string.match(a, '^%d,(%d+),') == seq then
    return leave(key, string.sub(f, 3), 's')
  end
end
return {redis.call('HGET', key, 'r') or '', '', 0}
`)
