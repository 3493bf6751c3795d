#pragma once

#include <list>
#include <unordered_map>
#include <utility>

namespace keen {

// A map that keeps at most capacity entries, dropping the least recently used one. find() and insert() count
// as uses; both are O(1).
template<typename Key, typename Value> class LruCache
{
public:
    // At least one entry: get() returns a reference to the entry it made, which must survive its own call.
    explicit LruCache(std::size_t capacity)
        : m_capacity(capacity > 0 ? capacity : 1)
    {}

    Value *find(const Key &key)
    {
        const auto it = m_map.find(key);
        if (it == m_map.end())
            return nullptr;
        m_order.splice(m_order.begin(), m_order, it->second.position);
        return &it->second.value;
    }
    // The entry for key, made (default-constructed) when missing.
    Value &get(const Key &key)
    {
        if (Value *value = find(key))
            return *value;
        m_order.push_front(key);
        auto inserted = m_map.emplace(key, Node{Value(), m_order.begin()}).first;
        if (m_map.size() > m_capacity) {
            m_map.erase(m_order.back());
            m_order.pop_back();
        }
        return inserted->second.value;
    }
    void remove(const Key &key)
    {
        const auto it = m_map.find(key);
        if (it == m_map.end())
            return;
        m_order.erase(it->second.position);
        m_map.erase(it);
    }
    void clear()
    {
        m_map.clear();
        m_order.clear();
    }
    std::size_t size() const { return m_map.size(); }
    std::size_t capacity() const { return m_capacity; }

private:
    struct Node
    {
        Value value;
        typename std::list<Key>::iterator position;
    };
    std::size_t m_capacity;
    std::list<Key> m_order; // most recent first
    std::unordered_map<Key, Node> m_map;
};

} // namespace keen
