/**
 * A V1 route is a V2 route definition (api/route.ts) with what every V1 route shares: the V1
 * signature as its auth scheme (the fields it signs after `{timestamp}`), the V1 error envelope,
 * deprecated, the V1 tag and the V1 preamble of its description, and 410 after the sunset.
 */
import type { z, ZodType } from 'zod';
import { InvalidArgument } from '../../domain/errors';
import { defineRoute, type Handler, type RouteDef, type RouteSpec } from '../route';
import { v1Auth, type V1Family, type V1Payload } from './auth';
import { v1ErrorEnvelope } from './envelope';

/** The tag of every V1 operation and webhook (registered in ./openapi.ts). */
export const V1_TAG = 'V1 (legacy, deprecated)';
const tags = [V1_TAG];
const V1_DESCRIPTION =
  'Legacy V1 adapter: deprecated; every answer carries Deprecation, Sunset and Link rel="successor-version", ' +
  'and from V1_SUNSET_AT on every /v1/ request is 410 Gone. No signed field may contain ";" (400), and a signature serves one kind of ' +
  'request (PayIn create, PayOut create, withdraw, dispute, reads): on another kind it is 401. ';

export type V1RouteSpec<P extends ZodType, Q extends ZodType, B extends ZodType> = Omit<
  RouteSpec<P, Q, B>,
  'auth' | 'tags' | 'deprecated' | 'errorEnvelope' | 'description'
> & {
  /** What the route does, after the V1 preamble. */
  description: string;
  /** The fields of the signed payload after `{timestamp}`, by name in their order, read from the raw request. */
  signs: V1Payload;
  /** The kind of request the route's signatures belong to: never accepted by a route of another family (api/v1/auth.ts). */
  family: V1Family;
};

export function defineV1Route<P extends ZodType = ZodType, Q extends ZodType = ZodType, B extends ZodType = ZodType>(
  spec: V1RouteSpec<P, Q, B>,
  handler: Handler<z.output<P>, z.output<Q>, z.output<B>>,
): RouteDef {
  const { signs, family, description, errors, ...rest } = spec;
  return defineRoute<P, Q, B>(
    {
      ...rest,
      auth: v1Auth(signs, family),
      tags,
      description: V1_DESCRIPTION + description,
      deprecated: true,
      errorEnvelope: v1ErrorEnvelope,
      errors: [410, ...(errors ?? [])],
    },
    handler,
  );
}

/** A V1 list's page size when `take` is absent. */
export const DEFAULT_TAKE = 20;

/** The filters every V1 list takes; the route's schema says which it accepts. */
export interface V1ListQuery {
  status?: number;
  skip?: number;
  take?: number;
  startDate?: Date;
  endDate?: Date;
}

/** A V1 creation window (startDate..endDate, inclusive) as the services' filter. */
export function creationWindow(startDate?: Date, endDate?: Date) {
  if (startDate && endDate && startDate > endDate) throw new InvalidArgument('startDate must not be later than endDate');
  return { createdAfter: startDate, createdBefore: endDate };
}
