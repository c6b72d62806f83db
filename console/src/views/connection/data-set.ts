/**
 * What the connection's data set holds, polled: its last commits and the files of its latest
 * snapshot, and how other engines read it as an Iceberg table. The files are read from the tenant's
 * store: while it does not answer, they show its error and the rest of the page goes on.
 */
import { type Answer, api, qs, type Schemas } from '../../api.ts';
import { bytes, counted, el, facts, replace, replaceOnChange, table, when } from '../../dom.ts';
import { type PolledPart, polledPart } from '../../view.ts';

type Run = Schemas['Run'];
type DataFile = Schemas['DataSetFiles']['files'][number];

export function dataSetRuns(dataSetId: string): PolledPart {
  return polledPart(
    () => api<Answer<'/api/data-sets/{data_set_id}/runs'>>(`api/data-sets/${dataSetId}/runs${qs({ limit: 20 })}`),
    (element, { runs }) =>
      replace(
        element,
        table<Run>(
          'The data set’s last 20 commits',
          [
            { label: 'Version', header: true, cell: (r) => r.version },
            { label: 'Files', cell: (r) => r.files },
            { label: 'Rows', cell: (r) => r.rows },
            { label: 'Bytes', cell: (r) => bytes(r.bytes) },
            { label: 'Duration', cell: (r) => (r.duration_ms === null ? '—' : `${r.duration_ms} ms`) },
            { label: 'Attempt', cell: (r) => r.attempt },
            { label: 'Completed', cell: (r) => when(r.completed_at) },
          ],
          runs,
          'Nothing written yet',
        ),
      ),
  );
}

function filesCaption({ version, files, next_cursor }: Answer<'/api/data-sets/{data_set_id}/files'>): string {
  if (version === null) return 'No snapshot yet';
  return `Latest snapshot, version ${version}: ${next_cursor ? `the newest ${counted(files.length, 'file')}` : counted(files.length, 'file')}`;
}

export function dataSetFiles(dataSetId: string): PolledPart {
  return polledPart(
    () => api<Answer<'/api/data-sets/{data_set_id}/files'>>(`api/data-sets/${dataSetId}/files${qs({ limit: 50 })}`),
    (element, answer) =>
      replace(
        element,
        table<DataFile>(
          filesCaption(answer),
          [
            {
              label: 'Path',
              header: true,
              // A download link only to an http(s) address: the URL is the store's, whose endpoint a tenant chose.
              cell: (f) => (/^https?:\/\//i.test(f.url) ? el('a', { href: f.url, rel: 'noreferrer' }, f.path) : f.path),
            },
            { label: 'Rows', cell: (f) => f.num_records },
            { label: 'Size', cell: (f) => bytes(f.size) },
          ],
          answer.files,
          'No files yet',
        ),
      ),
  );
}

/** Where the data set's Iceberg metadata is, once the data set says so (null before its first commit). */
function metadataLocationOf(dataSet: object): string | null {
  if (!('iceberg' in dataSet)) return null;
  const { iceberg } = dataSet;
  if (typeof iceberg !== 'object' || iceberg === null || !('metadata_location' in iceberg)) return null;
  return typeof iceberg.metadata_location === 'string' ? iceberg.metadata_location : null;
}

/** The snippets of docs/lake.md, filled in for one table: the key stays a placeholder, never the session's. */
export function lakeSnippets(coordinates: {
  catalogUri: string;
  namespace: string;
  dataSetId: string;
  metadataLocation: string | null;
}): [engine: string, code: string][] {
  const { catalogUri, namespace, dataSetId } = coordinates;
  const metadata = coordinates.metadataLocation ?? '<metadata_location>';
  return [
    [
      'DuckDB',
      [
        'INSTALL iceberg; LOAD iceberg; INSTALL httpfs; LOAD httpfs;',
        'CREATE SECRET lake (TYPE s3, PROVIDER credential_chain);',
        // A SQL string literal: a quote in the store's prefix is doubled, so the snippet runs as shown.
        `SELECT dt, count(*) FROM iceberg_scan('${metadata.replaceAll("'", "''")}') GROUP BY dt ORDER BY dt;`,
      ].join('\n'),
    ],
    [
      'Spark',
      [
        'spark-sql \\',
        '  --conf spark.sql.catalog.tributary=org.apache.iceberg.spark.SparkCatalog \\',
        '  --conf spark.sql.catalog.tributary.type=rest \\',
        `  --conf spark.sql.catalog.tributary.uri=${catalogUri} \\`,
        '  --conf spark.sql.catalog.tributary.credential=tributary:<api_key> \\',
        '  --conf spark.sql.catalog.tributary.header.X-Iceberg-Access-Delegation=vended-credentials \\',
        `  -e 'SELECT count(*) FROM tributary.${namespace}.\`${dataSetId}\`'`,
      ].join('\n'),
    ],
    [
      'Trino',
      [
        'connector.name=iceberg',
        'iceberg.catalog.type=rest',
        `iceberg.rest-catalog.uri=${catalogUri}`,
        'iceberg.rest-catalog.security=OAUTH2',
        'iceberg.rest-catalog.oauth2.credential=tributary:<api_key>',
        '',
        `-- SELECT count(*) FROM tributary."${namespace}"."${dataSetId}";`,
      ].join('\n'),
    ],
    [
      'pyiceberg',
      [
        'from pyiceberg.catalog import load_catalog',
        `catalog = load_catalog("tributary", type="rest", uri="${catalogUri}", credential="tributary:<api_key>")`,
        `table = catalog.load_table(("${namespace}", "${dataSetId}"))`,
        'print(table.scan().to_arrow().num_rows)',
      ].join('\n'),
    ],
    [
      'Snowflake',
      [
        'CREATE CATALOG INTEGRATION tributary CATALOG_SOURCE = ICEBERG_REST TABLE_FORMAT = ICEBERG',
        `  CATALOG_NAMESPACE = '${namespace}'`,
        `  REST_CONFIG = (CATALOG_URI = '${catalogUri}' ACCESS_DELEGATION_MODE = VENDED_CREDENTIALS)`,
        `  REST_AUTHENTICATION = (TYPE = OAUTH OAUTH_TOKEN_URI = '${catalogUri}/v1/oauth/tokens'`,
        "    OAUTH_CLIENT_ID = 'tributary' OAUTH_CLIENT_SECRET = '<api_key>' OAUTH_ALLOWED_SCOPES = ('catalog'))",
        '  ENABLED = TRUE;',
        `CREATE ICEBERG TABLE events CATALOG = 'tributary' CATALOG_TABLE_NAME = '${dataSetId}';`,
      ].join('\n'),
    ],
  ];
}

/**
 * How other engines read the data set: the Iceberg catalog's coordinates (the catalog at this
 * page's origin, the tenant's slug, the data set's id) and a snippet per engine (docs/lake.md).
 * Drawn again only when what it shows changes, so a poll never takes away a selection being copied.
 */
export function dataSetReading(dataSetId: string): PolledPart {
  return polledPart(
    () => api<Answer<'/api/data-sets/{data_set_id}'>>(`api/data-sets/${dataSetId}`),
    (element, dataSet) => {
      const coordinates = {
        catalogUri: new URL('iceberg', location.href).href,
        namespace: dataSet.tenant_slug,
        dataSetId,
        metadataLocation: metadataLocationOf(dataSet),
      };
      const committed = dataSet.version !== null;
      replaceOnChange(
        element,
        JSON.stringify({ ...coordinates, committed }),
        el(
          'p',
          {},
          committed
            ? 'The data set is also an Iceberg table. Engines read it through the catalog with an API key (a TenantViewer’s is enough):'
            : 'The data set becomes an Iceberg table with its first commit; until then the catalog does not list it.',
        ),
        facts(
          ['Catalog URI', coordinates.catalogUri, 'lake-catalog-uri'],
          ['Namespace', coordinates.namespace, 'lake-namespace'],
          ['Table', coordinates.dataSetId, 'lake-table'],
          ['Metadata', coordinates.metadataLocation ?? 'Not known yet', 'lake-metadata'],
        ),
        lakeSnippets(coordinates).map(([engine, code]) =>
          el('figure', {}, el('figcaption', {}, engine), el('pre', { tabindex: 0 }, el('code', {}, code))),
        ),
      );
    },
  );
}
