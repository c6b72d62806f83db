/**
 * Error bodies of the routes that follow another protocol than Tributary's (RouteSpec.protocol):
 * the Iceberg REST catalog's error model, and OAuth2's at its token endpoint. The status is the
 * contract's for the error's code (error-status.ts); only the body differs.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { CatalogError, OAuthError } from '../domain/iceberg/errors.ts';
import { statusOfCode } from './error-status.ts';
import { domainErrorOf, toApiGatewayResult } from './responses.ts';
import type { Protocol } from './route-spec.ts';

/** The exception an Iceberg client raises for a status, where the error names none of its own. */
const icebergTypeOfStatus: Readonly<Record<number, string>> = {
  400: 'BadRequestException',
  401: 'NotAuthorizedException',
  403: 'ForbiddenException',
  404: 'NotFoundException',
  409: 'AlreadyExistsException',
  429: 'TooManyRequestsException',
  503: 'ServiceUnavailableException',
};

export function icebergErrorType(error: { code: keyof typeof statusOfCode }, status: number): string {
  if (error instanceof CatalogError) return error.type;
  return icebergTypeOfStatus[status] ?? (status >= 500 ? 'ServiceFailureException' : 'BadRequestException');
}

export function protocolErrorResult(
  protocol: Protocol,
  error: unknown,
  requestId: string,
): APIGatewayProxyStructuredResultV2 {
  const domainError = domainErrorOf(error);
  const status = statusOfCode[domainError.code];
  const body =
    protocol === 'iceberg'
      ? { error: { message: domainError.message, type: icebergErrorType(domainError, status), code: status } }
      : {
          error:
            domainError instanceof OAuthError
              ? domainError.error
              : status === 401
                ? 'invalid_client'
                : status >= 500
                  ? 'server_error'
                  : 'invalid_request',
          error_description: domainError.message,
        };
  return toApiGatewayResult({ status, headers: domainError.headers, body }, requestId);
}
