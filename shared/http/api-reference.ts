/**
 * The API reference page (`GET /docs`): the OpenAPI document rendered as one self-contained HTML
 * page, server-side, with its styles inline: no scripts, fonts or stylesheets from anywhere else,
 * so it works offline and under a strict Content-Security-Policy.
 */
import type { OpenApiDocument } from './openapi.ts';

type Json = Record<string, unknown>;

const escapeHtml = (text: unknown) =>
  String(text).replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] as string,
  );

/** Inline `code` spans of the summaries and descriptions, and nothing else of Markdown. */
const prose = (text: unknown) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

const anchor = (text: string) => text.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '');

function refName(ref: string): string {
  return ref.split('/').pop() as string;
}

/** A one-line type: `string (uuid)`, `integer 1–1000`, `Tenant[]`, `"A" | "B"`, `… | null`. */
function typeOf(schema: Json): string {
  if (typeof schema.$ref === 'string') {
    const name = refName(schema.$ref);
    return `<a href="#schema-${anchor(name)}">${escapeHtml(name)}</a>`;
  }
  const alternatives = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (alternatives) return alternatives.map(typeOf).join(' | ');
  if (Array.isArray(schema.enum))
    return schema.enum.map((value) => `<code>${escapeHtml(JSON.stringify(value))}</code>`).join(' | ');
  if (schema.const !== undefined) return `<code>${escapeHtml(JSON.stringify(schema.const))}</code>`;
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.includes('array')) return `${typeOf((schema.items ?? {}) as Json)}[]`;
  const constraints = [
    schema.format,
    schema.minimum !== undefined || schema.maximum !== undefined
      ? `${schema.minimum ?? ''}–${schema.maximum ?? ''}`
      : '',
    schema.minLength !== undefined || schema.maxLength !== undefined
      ? `length ${schema.minLength ?? 0}–${schema.maxLength ?? ''}`
      : '',
    schema.pattern && !schema.format ? `pattern <code>${escapeHtml(schema.pattern)}</code>` : '',
    schema.default !== undefined ? `default <code>${escapeHtml(JSON.stringify(schema.default))}</code>` : '',
  ].filter(Boolean);
  const name = types.length ? types.join(' | ') : 'any';
  return constraints.length
    ? `${escapeHtml(name)} <small>${constraints.map(String).join(', ')}</small>`
    : escapeHtml(name);
}

/** An object's properties as a table, nested objects inside; anything else as its type. */
function schemaHtml(schema: Json): string {
  const properties = schema.properties as Record<string, Json> | undefined;
  if (!properties) {
    if (schema.type === 'array' && (schema.items as Json | undefined)?.properties)
      return `<p>Array of:</p>${schemaHtml(schema.items as Json)}`;
    return `<p class="type">${typeOf(schema)}</p>`;
  }
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const rows = Object.entries(properties).map(([name, property]) => {
    const nested = property.properties || (property.items as Json | undefined)?.properties ? schemaHtml(property) : '';
    return `<tr><td><code>${escapeHtml(name)}</code>${required.has(name) ? '' : ' <small>optional</small>'}</td><td>${nested || typeOf(property)}${property.description ? `<br><small>${prose(property.description)}</small>` : ''}</td></tr>`;
  });
  return `<table class="schema"><tbody>${rows.join('')}</tbody></table>`;
}

function operationHtml(method: string, path: string, operation: Json): string {
  const parameters = (operation.parameters as Json[]) ?? [];
  const security = operation.security as Json[];
  const auth =
    security.length === 0 ? 'none' : security.map((entry) => Object.keys(entry)[0] ?? 'optional').join(' or ');
  const body = operation.requestBody as Json | undefined;
  const bodyContent = body ? (Object.entries(body.content as Json)[0] as [string, Json]) : undefined;
  const responses = Object.entries(operation.responses as Record<string, Json>).map(([status, response]) => {
    const content = response.content ? (Object.entries(response.content as Json)[0] as [string, Json]) : undefined;
    const schema = content?.[1].schema as Json | undefined;
    return `<tr><td><b>${escapeHtml(status)}</b></td><td>${prose(response.description)}${
      content
        ? ` <small>${escapeHtml(content[0])}</small>${schema && content[0].includes('json') ? schemaHtml(schema) : ''}`
        : ''
    }</td></tr>`;
  });
  return `<section class="operation" id="${escapeHtml(operation.operationId)}">
<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
<p>${prose(operation.summary)}</p>
${operation.description ? `<p>${prose(operation.description)}</p>` : ''}
<p><small>Authentication: ${escapeHtml(auth)} · operationId <code>${escapeHtml(operation.operationId)}</code></small></p>
${
  parameters.length
    ? `<h4>Parameters</h4><table class="schema"><tbody>${parameters
        .map(
          (parameter) =>
            `<tr><td><code>${escapeHtml(parameter.name)}</code> <small>${escapeHtml(parameter.in)}${parameter.required ? '' : ', optional'}</small></td><td>${typeOf(parameter.schema as Json)}${parameter.description ? `<br><small>${prose(parameter.description)}</small>` : ''}</td></tr>`,
        )
        .join('')}</tbody></table>`
    : ''
}
${
  bodyContent
    ? `<h4>Request body <small>${escapeHtml(bodyContent[0])}</small></h4>${body?.description ? `<p>${prose(body.description)}</p>` : ''}${
        bodyContent[0].includes('json') ? schemaHtml(bodyContent[1].schema as Json) : ''
      }`
    : ''
}
<h4>Responses</h4><table class="schema"><tbody>${responses.join('')}</tbody></table>
</section>`;
}

const style = `
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2330;display:flex}
nav{position:sticky;top:0;height:100vh;overflow:auto;width:290px;flex:none;background:#f4f6f9;border-right:1px solid #dde2ea;padding:16px;box-sizing:border-box;font-size:13px}
nav a{display:block;color:#1d2330;text-decoration:none;padding:1px 0}nav h2{font-size:13px;margin:14px 0 4px;text-transform:uppercase;color:#5b6575}
main{padding:24px 40px;max-width:980px;min-width:0}
h1{margin-top:0}.operation{border-top:1px solid #dde2ea;padding:12px 0}
.method{display:inline-block;min-width:58px;text-align:center;border-radius:4px;color:#fff;font-size:12px;padding:2px 6px;margin-right:6px}
.get{background:#2f7d32}.post{background:#1f5fbf}.put{background:#9a6700}.delete{background:#b3261e}
code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f0f2f5;padding:0 3px;border-radius:3px}
table.schema{border-collapse:collapse;width:100%;margin:4px 0}table.schema td{border:1px solid #e3e7ee;padding:4px 8px;vertical-align:top}
table.schema td:first-child{white-space:nowrap;width:1%}small{color:#5b6575}
`;

export function apiReferencePage(document: OpenApiDocument): string {
  const byTag = new Map<string, string[]>();
  const nav = new Map<string, string[]>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item) as [string, Json][]) {
      const tag = (operation.tags as string[])[0] as string;
      byTag.set(tag, [...(byTag.get(tag) ?? []), operationHtml(method, path, operation)]);
      nav.set(tag, [
        ...(nav.get(tag) ?? []),
        `<a href="#${escapeHtml(operation.operationId)}"><b>${method.toUpperCase()}</b> ${escapeHtml(path)}</a>`,
      ]);
    }
  }
  const schemas = Object.entries((document.components.schemas ?? {}) as Record<string, Json>);
  const info = document.info as Json;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(info.title)} ${escapeHtml(info.version)} — API reference</title><style>${style}</style></head>
<body><nav><b>${escapeHtml(info.title)}</b> <small>${escapeHtml(info.version)}</small>
<a href="openapi.json">openapi.json</a>
${document.tags.map((tag) => `<h2>${escapeHtml(tag.name)}</h2>${(nav.get(tag.name) ?? []).join('')}`).join('')}
<h2>Schemas</h2>${schemas.map(([name]) => `<a href="#schema-${anchor(name)}">${escapeHtml(name)}</a>`).join('')}
</nav><main>
<h1>${escapeHtml(info.title)} <small>${escapeHtml(info.version)}</small></h1>
<p>${prose(info.summary)}</p><p>${prose(info.description)}</p>
<p>Base URL: <code>${escapeHtml(document.servers[0]?.url)}</code>. The machine-readable description is <a href="openapi.json">openapi.json</a> (OpenAPI 3.1).</p>
${document.tags
  .map(
    (tag) =>
      `<h2 id="tag-${anchor(tag.name)}">${escapeHtml(tag.name)}</h2><p>${prose(tag.description)}</p>${(byTag.get(tag.name) ?? []).join('')}`,
  )
  .join('')}
<h2>Schemas</h2>
${schemas.map(([name, schema]) => `<section class="operation" id="schema-${anchor(name)}"><h3>${escapeHtml(name)}</h3>${schema.description ? `<p>${prose(schema.description)}</p>` : ''}${schemaHtml(schema)}</section>`).join('')}
</main></body></html>`;
}
