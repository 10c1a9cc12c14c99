export { demoModule } from './module.ts';
export { demoCatalog, type DemoCatalog, type DemoSeries } from './demo-catalog.ts';
export { seedDemoCatalog } from './seed.ts';
export { DEMO_SUBTITLE_LANGS, demoSubtitles } from './demo-subtitles.ts';
export { renderDemoCover, renderDemoEpisode, type DemoCoverOptions, type DemoEpisodeOptions } from './demo-source.ts';
