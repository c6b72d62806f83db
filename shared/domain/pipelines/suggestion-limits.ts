/**
 * How much a column suggestion reads (suggest-columns.ts): apart from the sampler, so that the
 * request schema naming them does not carry the decoders and the XML parser into every data set route.
 */
export const suggestionLimits = { defaultSample: 100, maxSample: 1000, maxFiles: 16, maxColumns: 200 };
