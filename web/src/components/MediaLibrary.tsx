import { Button, FileButton, Group, Image, Modal, Pagination, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { media as mediaApi, type Schemas } from '../api.ts';
import { useAction, useLoad } from '../hooks.ts';
import { ConfirmButton } from './ConfirmButton.tsx';
import { ErrorText, PageState } from './PageState.tsx';

export type Media = Schemas['Media'];

const PAGE_SIZE = 12;

/** The alt text a picked image starts with: its file name without the extension. */
const altFromName = (name: string) => name.replace(/\.[A-Za-z0-9]+$/, '').replace(/[-_]+/g, ' ');

/**
 * D22: the account's images in a dialog: browse, upload, delete; with `onPick`, choosing one
 * asks for its alt text (mail shows it when images are off, screen readers read it) and hands
 * both back.
 */
export function MediaLibrary({ opened, onClose, onPick }: { opened: boolean; onClose: () => void; onPick?: (image: Media, alt: string) => void }) {
  const [page, setPage] = useState(1);
  const [picked, setPicked] = useState<Media | null>(null);
  const [alt, setAlt] = useState('');
  const media = useLoad(() => mediaApi.page({ size: PAGE_SIZE, page: page - 1 }), [page, opened]);
  const action = useAction();
  const choose = (image: Media) => {
    setPicked(image);
    setAlt(altFromName(image.name));
  };
  const upload = async (file: File | null) => {
    if (!file) return;
    const created = await action.run(() => mediaApi.upload(file));
    if (!created) return;
    setPage(1);
    await media.reload();
    if (onPick) choose(created);
  };
  const close = () => {
    setPicked(null);
    onClose();
  };

  return (
    <Modal opened={opened} onClose={close} title="Media library" size="xl">
      {picked && onPick ? (
        <Stack>
          <Image src={picked.url} alt="" mah={240} fit="contain" />
          <TextInput label="Alt text" description="Shown when images are off and read by screen readers; describe the picture" value={alt} onChange={(e) => setAlt(e.currentTarget.value)} data-autofocus />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setPicked(null)}>
              Back
            </Button>
            <Button
              onClick={() => {
                onPick(picked, alt.trim());
                close();
              }}
            >
              Insert image
            </Button>
          </Group>
        </Stack>
      ) : (
        <Stack>
          <Group justify="space-between">
            <Text size="sm" c="dimmed">
              PNG, JPEG, GIF or WebP. Images are public at their address, so mail can show them.
            </Text>
            <FileButton onChange={(file) => void upload(file)} accept="image/png,image/jpeg,image/gif,image/webp">
              {(props) => (
                <Button {...props} loading={action.busy}>
                  Upload image
                </Button>
              )}
            </FileButton>
          </Group>
          <ErrorText error={action.error} />
          <PageState loading={media.loading && !media.data} error={media.error} empty={media.data?.items.length === 0} emptyText="No images yet: upload one." onRetry={() => void media.reload()}>
            {media.data && (
              <Stack>
                <SimpleGrid cols={{ base: 2, sm: 4 }}>
                  {media.data.items.map((image) => (
                    <Stack key={image.id} gap={4} className="media-tile">
                      <Image src={image.url} alt={image.name} h={100} fit="contain" />
                      <Text size="xs" truncate title={image.name}>
                        {image.name}
                      </Text>
                      <Text size="xs" c="dimmed">
                        {image.width && image.height ? `${image.width}×${image.height} · ` : ''}
                        {Math.ceil(image.size / 1024)} KB
                      </Text>
                      <Group gap={4}>
                        {onPick && (
                          <Button size="compact-xs" onClick={() => choose(image)}>
                            Use
                          </Button>
                        )}
                        <ConfirmButton
                          size="compact-xs"
                          variant="subtle"
                          color="red"
                          label="Delete"
                          title="Delete this image?"
                          message="Its address stops working, also in mail already sent that shows it."
                          confirmLabel="Delete image"
                          onConfirm={async () => {
                            await mediaApi.remove(image.id);
                            await media.reload();
                          }}
                        />
                      </Group>
                    </Stack>
                  ))}
                </SimpleGrid>
                {media.data.totalPages > 1 && <Pagination total={media.data.totalPages} value={page} onChange={setPage} />}
              </Stack>
            )}
          </PageState>
        </Stack>
      )}
    </Modal>
  );
}
