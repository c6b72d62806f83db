/**
 * The catalog's refusals, as domain errors that also name the type Iceberg clients tell apart
 * (`NoSuchTableException` …) and, at the token endpoint, the OAuth2 error code (RFC 6749 §5.2). The
 * edge renders them in the route's protocol (shared/http/protocol-errors.ts); any other domain error
 * gets the type of its status there.
 */
import { DomainError, type ErrorCode } from '../errors.ts';

export class CatalogError extends DomainError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly type: string,
  ) {
    super(code, message);
  }
}

export const noSuchNamespace = (namespace: string): CatalogError =>
  new CatalogError('NOT_FOUND', `Namespace does not exist: ${namespace}`, 'NoSuchNamespaceException');

export const noSuchTable = (namespace: string, table: string): CatalogError =>
  new CatalogError('NOT_FOUND', `Table does not exist: ${namespace}.${table}`, 'NoSuchTableException');

export const catalogReadOnly = (): CatalogError =>
  new CatalogError(
    'FORBIDDEN',
    'The Tributary catalog is read-only: its tables change only through Tributary',
    'ForbiddenException',
  );

export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type';

export class OAuthError extends DomainError {
  constructor(
    readonly error: OAuthErrorCode,
    message: string,
  ) {
    super(error === 'invalid_client' ? 'UNAUTHORIZED' : 'VALIDATION_ERROR', message);
  }
}
