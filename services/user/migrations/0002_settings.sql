-- A viewer's own settings: autoUnlock spends coins on a locked episode without asking when they play on into it.
alter table users.users add column auto_unlock boolean not null default false;
