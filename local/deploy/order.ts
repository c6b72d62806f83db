/**
 * The order CloudFormation creates a template's resources in: a resource waits for every resource
 * it names in DependsOn and every one it refers to with Ref, Fn::GetAtt or Fn::Sub (an implicit
 * dependency), as "DependsOn attribute" in the CloudFormation template reference describes:
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-attribute-dependson.html
 * CloudFormation creates independent resources in parallel; locally they go one at a time, in the
 * template's order among those that are ready, so a start is the same every time. Deletion runs
 * the other way round.
 */

type Json = unknown;

export interface TemplateResource {
  Type: string;
  Properties?: Record<string, Json>;
  DependsOn?: string | string[];
}

/** The logical ids a value refers to (Ref, Fn::GetAtt, Fn::Sub's `${Name}` and `${Name.Attribute}`). */
function referencesIn(value: Json, names: Set<string>): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => referencesIn(item, names));
  if (typeof value === 'string')
    return [...value.matchAll(/\$\{([A-Za-z0-9]+)(?:\.[A-Za-z0-9.]+)?\}/g)]
      .map((match) => match[1] ?? '')
      .filter((name) => names.has(name));
  if (!value || typeof value !== 'object') return [];
  const object = Object.entries(value);
  const found: string[] = [];
  for (const [key, inner] of object) {
    if (key === 'Ref' && typeof inner === 'string' && names.has(inner)) found.push(inner);
    else if (key === 'Fn::GetAtt') {
      const target = Array.isArray(inner) ? inner[0] : typeof inner === 'string' ? inner.split('.')[0] : undefined;
      if (typeof target === 'string' && names.has(target)) found.push(target);
      else found.push(...referencesIn(inner, names));
    } else found.push(...referencesIn(inner, names));
  }
  return found;
}

/** What each resource waits for, by logical id. */
export function dependenciesOf(resources: Record<string, TemplateResource>): Map<string, Set<string>> {
  const names = new Set(Object.keys(resources));
  return new Map(
    Object.entries(resources).map(([logicalId, resource]) => {
      const explicit = resource.DependsOn === undefined ? [] : [resource.DependsOn].flat();
      for (const name of explicit)
        if (!names.has(name)) throw new Error(`${logicalId} depends on ${name}, which the template does not have`);
      const implicit = referencesIn(resource.Properties ?? {}, names);
      return [logicalId, new Set([...explicit, ...implicit].filter((name) => name !== logicalId))];
    }),
  );
}

/**
 * Every logical id of the template, each after everything it waits for; among resources ready at
 * the same moment, the template's order. A cycle is refused, as CloudFormation refuses it
 * ("Circular dependency between resources").
 */
export function creationOrder(resources: Record<string, TemplateResource>): string[] {
  const waitsFor = dependenciesOf(resources);
  const done = new Set<string>();
  const order: string[] = [];
  const pending = Object.keys(resources);
  while (pending.length > 0) {
    const index = pending.findIndex((name) => [...(waitsFor.get(name) ?? [])].every((needed) => done.has(needed)));
    if (index === -1) throw new Error(`Circular dependency between resources: ${pending.join(', ')}`);
    const [next] = pending.splice(index, 1) as [string];
    done.add(next);
    order.push(next);
  }
  return order;
}
