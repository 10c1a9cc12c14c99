-- An episode can be announced before its file arrives (the demo catalog does so for every series
-- at once): viewers see it in the series, locked or free, and not ready until it is transcoded.
alter table catalog.episodes drop constraint episodes_status_check;
alter table catalog.episodes add constraint episodes_status_check check (status in ('planned', 'pending', 'ready', 'failed'));
alter table catalog.episodes alter column upload_id drop not null;
alter table catalog.episodes alter column source_key drop not null;
alter table catalog.episodes add constraint episodes_upload_when_uploaded check ((status = 'planned') = (upload_id is null and source_key is null));
