#pragma once

// A parsed YAML (or MessagePack twin) document as opkit's own value: scalars,
// sequences and mappings, each with the line:col it was read at. yaml-cpp makes
// these once (project/yaml_util) and is not seen past it; a twin is read into
// them straight from its JSON, without yaml-cpp's node graph, which is what the
// tables of every command cost before.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::project {

enum class NodeKind : uint8_t
{
  undefined, // a key that is not there
  null,
  scalar,
  sequence,
  map,
};

// Where a node was read: 0-based, as yaml-cpp counts; -1 when not known (a twin).
struct NodeMark
{
  int line = -1;
  int column = -1;
  bool is_null() const { return line < 0; }
};

struct NodeData
{
  NodeData() = default;
  explicit NodeData(NodeKind of)
    : kind(of)
  {
  }

  NodeKind kind = NodeKind::undefined;
  bool quoted = false; // a scalar written in quotes ("1" is a string)
  NodeMark mark;
  std::string text;               // a scalar's value
  std::vector<NodeData> children; // a sequence's items; a mapping's keys and values, alternating
};

// A handle on one node of a document, which it keeps alive. A missing key or
// index gives an undefined node, never an exception.
class Node
{
public:
  struct Entry;
  class Iterator;

  Node() = default;
  explicit Node(NodeData root);

  NodeKind kind() const { return m_data ? m_data->kind : NodeKind::undefined; }
  bool is_defined() const { return kind() != NodeKind::undefined; }
  bool is_null() const { return kind() == NodeKind::null; }
  bool is_scalar() const { return kind() == NodeKind::scalar; }
  bool is_sequence() const { return kind() == NodeKind::sequence; }
  bool is_map() const { return kind() == NodeKind::map; }
  bool quoted() const { return m_data && m_data->quoted; }
  explicit operator bool() const { return is_defined(); }

  // A scalar's text ("" for anything else).
  const std::string& scalar() const;
  NodeMark mark() const { return m_data ? m_data->mark : NodeMark{}; }

  // A mapping's value for `key` (the first, as duplicates are refused when read).
  Node operator[](std::string_view key) const;
  // A sequence's item.
  Node operator[](size_t index) const;
  // Items of a sequence, entries of a mapping, 0 for the others.
  size_t size() const;

  // A sequence yields its items (the Entry is the item); a mapping its entries
  // (first: the key, second: the value); anything else nothing.
  Iterator begin() const;
  Iterator end() const;

private:
  Node(const std::shared_ptr<const NodeData>& owner, const NodeData* data)
    : m_data(owner, data)
  {
  }
  std::shared_ptr<const NodeData> m_data;
};

struct Node::Entry : Node
{
  Node first;
  Node second;
};

class Node::Iterator
{
public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = Entry;
  using difference_type = std::ptrdiff_t;
  using pointer = const Entry*;
  using reference = const Entry&;

  Iterator() = default;
  Entry operator*() const;
  Iterator& operator++()
  {
    m_at += m_step;
    return *this;
  }
  bool operator==(const Iterator& other) const { return m_at == other.m_at; }
  bool operator!=(const Iterator& other) const { return m_at != other.m_at; }

private:
  friend class Node;
  Iterator(const std::shared_ptr<const NodeData>& owner, size_t at, size_t step)
    : m_owner(owner)
    , m_at(at)
    , m_step(step)
  {
  }
  std::shared_ptr<const NodeData> m_owner;
  size_t m_at = 0;
  size_t m_step = 1;
};

} // namespace opkit::project
