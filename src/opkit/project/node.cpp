#include "opkit/project/node.hpp"

namespace opkit::project {

Node::Node(NodeData root)
  : m_data(std::make_shared<const NodeData>(std::move(root)))
{
}

const std::string&
Node::scalar() const
{
  static const std::string none;
  return is_scalar() ? m_data->text : none;
}

Node
Node::operator[](std::string_view key) const
{
  if (!is_map()) {
    return {};
  }
  const std::vector<NodeData>& children = m_data->children;
  for (size_t i = 0; i + 1 < children.size(); i += 2) {
    if (children[i].kind == NodeKind::scalar && children[i].text == key) {
      return {m_data, &children[i + 1]};
    }
  }
  return {};
}

Node
Node::operator[](size_t index) const
{
  if (!is_sequence() || index >= m_data->children.size()) {
    return {};
  }
  return {m_data, &m_data->children[index]};
}

size_t
Node::size() const
{
  if (is_sequence()) {
    return m_data->children.size();
  }
  return is_map() ? m_data->children.size() / 2 : 0;
}

Node::Iterator
Node::begin() const
{
  if (!is_sequence() && !is_map()) {
    return {};
  }
  return {m_data, 0, is_map() ? size_t{2} : size_t{1}};
}

Node::Iterator
Node::end() const
{
  if (!is_sequence() && !is_map()) {
    return {};
  }
  size_t step = is_map() ? 2 : 1;
  return {m_data, m_data->children.size() / step * step, step};
}

Node::Entry
Node::Iterator::operator*() const
{
  const std::vector<NodeData>& children = m_owner->children;
  Entry entry;
  if (m_step == 2) {
    entry.first = Node(m_owner, &children[m_at]);
    entry.second = Node(m_owner, &children[m_at + 1]);
  } else {
    static_cast<Node&>(entry) = Node(m_owner, &children[m_at]);
  }
  return entry;
}

} // namespace opkit::project
