export { catalogMigrations, catalogModule } from './module.ts';
export { catalogClientOverHttp, type CatalogClient, type EpisodeTerms, type LocalCatalogClient } from './client.ts';
export { transcodePriorityOf, type AdminEpisode, type AdminVideo, type CatalogAdmin } from './admin.ts';
export type { HistoryRecorded, TranscodeCompleted, TranscodeFailed, UploadReceived } from './events.ts';
export { GRANT_TTL_SECONDS, grantAllows, issuePlaybackGrant } from './grants.ts';
export { parseRange } from './media-routes.ts';
export type { EntitlementPolicy, Transcoder, TranscodeProgress, TranscodeRequest, ViewerLists } from './ports.ts';
export { MAX_KEYWORD_LENGTH } from './routes.ts';
export { CAROUSEL_TITLE, type CatalogService, type Episode, type Homepage, type Video, type VideoCard } from './service.ts';
