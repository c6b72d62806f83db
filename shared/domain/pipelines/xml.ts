/**
 * XML bodies as documents in the pipelines' path language, read with saxes: a strict XML 1.0
 * parser that checks well-formedness (mismatched tags, duplicate attributes, characters XML
 * forbids, undefined entities) and never reads a DTD. On top of it, hostile input is refused:
 *  - any DOCTYPE rejects the row: no internal subset, no entity declarations (billion laughs),
 *    no external entities or system identifiers are ever resolved; only XML's five predefined
 *    entities and character references are decoded;
 *  - the document's size, nesting depth, attributes per element and number of nodes are bounded,
 *    checked as the parser goes, so a hostile body costs at most its own (bounded) parse.
 *
 * The mapping: the root element is a key; attributes are "@name"; an element with only text is
 * its text (an empty element is ""); text beside attributes or children is "#text" (whitespace
 * between child elements is formatting, and dropped); repeated sibling elements are an array.
 * Namespace prefixes stay part of the names ("soap:Envelope").
 */
import { SaxesParser } from 'saxes';

export const xmlLimits = {
  /** Characters of the decoded document. */
  maxChars: 4 * 1024 * 1024,
  maxDepth: 64,
  maxAttributesPerElement: 256,
  /** Elements, attributes and text pieces in all. */
  maxNodes: 100_000,
};

export class XmlRejected extends Error {}

interface Open {
  name: string;
  node: Record<string, unknown>;
  text: string[];
  hasChildren: boolean;
  hasAttributes: boolean;
}

/** A map with no prototype: element and attribute names such as "__proto__" are plain keys. */
const record = (): Record<string, unknown> => Object.create(null) as Record<string, unknown>;

function addChild(parent: Record<string, unknown>, name: string, value: unknown): void {
  if (!Object.hasOwn(parent, name)) parent[name] = value;
  else if (Array.isArray(parent[name])) (parent[name] as unknown[]).push(value);
  else parent[name] = [parent[name], value];
}

/** Parses an XML document into the path language's shape; XmlRejected says why a body is refused. */
export function parseXml(text: string): Record<string, unknown> {
  if (text.length > xmlLimits.maxChars) throw new XmlRejected(`XML document over ${xmlLimits.maxChars} characters`);
  const parser = new SaxesParser({ position: false });
  const root = record();
  const stack: Open[] = [];
  let nodes = 0;
  let attributesOfTag = 0;
  const count = () => {
    if (++nodes > xmlLimits.maxNodes) throw new XmlRejected(`XML document over ${xmlLimits.maxNodes} nodes`);
  };
  const addText = (text: string) => {
    const top = stack.at(-1);
    if (!top) return; // whitespace outside the root element (anything else is a well-formedness error)
    count();
    top.text.push(text);
  };

  parser.on('error', (error) => {
    throw new XmlRejected(`XML is not well-formed: ${error.message.replace(/^[^:]*:\d+:\d+: /, '')}`);
  });
  parser.on('doctype', () => {
    throw new XmlRejected('XML with a DOCTYPE is not accepted (no DTDs, no entity declarations)');
  });
  parser.on('opentagstart', () => {
    count();
    attributesOfTag = 0;
    if (stack.length >= xmlLimits.maxDepth)
      throw new XmlRejected(`XML nested deeper than ${xmlLimits.maxDepth} elements`);
  });
  parser.on('attribute', () => {
    count();
    if (++attributesOfTag > xmlLimits.maxAttributesPerElement)
      throw new XmlRejected(`XML element with over ${xmlLimits.maxAttributesPerElement} attributes`);
  });
  parser.on('opentag', (tag) => {
    const attributes = Object.entries(tag.attributes);
    const node = record();
    for (const [name, value] of attributes) node[`@${name}`] = value;
    const parent = stack.at(-1);
    if (parent) parent.hasChildren = true;
    stack.push({ name: tag.name, node, text: [], hasChildren: false, hasAttributes: attributes.length > 0 });
  });
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    const done = stack.pop() as Open;
    const parent = stack.at(-1)?.node ?? root;
    let value: unknown;
    if (!done.hasChildren && !done.hasAttributes) value = done.text.join('');
    else {
      // Between child elements, whitespace-only text is indentation; mixed content keeps its text.
      const text = done.text.filter((piece) => !done.hasChildren || piece.trim() !== '').join('');
      if (text !== '') done.node['#text'] = text;
      value = done.node;
    }
    addChild(parent, done.name, value);
  });

  parser.write(text).close();
  return root;
}
